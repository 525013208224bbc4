/**
 * `switchboard doctor` for DingTalk: fetches an access token with the app's credentials and a Stream ticket
 * (without connecting), the two calls the channel starts with.
 */
import { DingtalkApi } from "./api.js";
import { completeSettings, type DingtalkConfig } from "./config.js";
import { openConnection, ROBOT_TOPIC } from "./stream.js";

export async function checkDingtalk(config: DingtalkConfig): Promise<string> {
  const settings = completeSettings(config);
  const { apiUrl, oapiUrl, clientId, clientSecret, robotCode } = settings;
  const api = new DingtalkApi({ apiUrl, oapiUrl, clientId, clientSecret, timeoutMs: 15_000 });
  await api.accessToken();
  await openConnection({ apiUrl, clientId, clientSecret, topics: [ROBOT_TOPIC] });
  const minutes = Math.round(((api.tokenExpiry()?.getTime() ?? Date.now()) - Date.now()) / 60_000);
  return `access token obtained (refreshed in ${minutes} min); Stream ticket issued; robot code ${robotCode}`;
}
