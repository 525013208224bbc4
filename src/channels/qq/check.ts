/** `switchboard doctor` for QQ: fetches an app access token and the gateway URL, the two calls the channel starts with. */
import { QqApi } from "./api.js";
import { completeSettings, type QqConfig } from "./config.js";

export async function checkQq(config: QqConfig): Promise<string> {
  const settings = completeSettings(config);
  const api = new QqApi({ apiUrl: settings.apiUrl, tokenUrl: settings.tokenUrl, appId: settings.appId, appSecret: settings.appSecret, timeoutMs: 15_000 });
  await api.accessToken();
  const gateway = await api.call("GET", "/gateway");
  const where = settings.sandbox ? "sandbox API" : "API";
  const delivery = settings.mode === "webhook" ? `events by webhook at ${settings.webhookPath}` : `gateway ${String(gateway.url)}`;
  return `app access token obtained; ${where} ${settings.apiUrl}; ${delivery}`;
}
