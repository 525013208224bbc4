/** `switchboard doctor` for Matrix: whoami with the configured token, and the homeserver's versions. */
import { MatrixApi } from "./api.js";
import type { MatrixConfig } from "./config.js";

export async function checkMatrix(settings: MatrixConfig): Promise<string> {
  const { homeserverUrl, accessToken, userId, autoJoin } = settings;
  if (homeserverUrl === null || accessToken === null) throw new Error("MATRIX_HOMESERVER_URL and MATRIX_ACCESS_TOKEN must both be set");
  const api = new MatrixApi(homeserverUrl, accessToken);
  const versions = await api.call<{ versions?: string[] }>({ method: "GET", path: "/_matrix/client/versions", timeoutMs: 15_000 });
  const me = await api.call<{ user_id?: string; device_id?: string }>({ method: "GET", path: "/_matrix/client/v3/account/whoami", timeoutMs: 15_000 });
  if (userId !== null && me.user_id !== userId) throw new Error(`the access token belongs to ${me.user_id}, not to MATRIX_USER_ID ${userId}`);
  const newest = versions.versions?.at(-1) ?? "unknown";
  return `token valid for ${me.user_id}${me.device_id ? ` (device ${me.device_id})` : ""}; homeserver speaks Client-Server ${newest}; invitations: ${autoJoin}`;
}
