/**
 * `switchboard doctor` for Feishu/Lark: fetches a tenant access token and the bot's info with the app's
 * credentials, through the same client the channel uses, and reports both.
 */
import { createLogger } from "../../infra/log.js";
import { FeishuApi } from "./api.js";
import { feishuBaseUrl, type FeishuConfig } from "./config.js";

/** The SDK replaces the token this long before Feishu's own expiry. */
const SDK_EARLY_REFRESH_MS = 3 * 60_000;

export async function checkFeishu(settings: FeishuConfig): Promise<string> {
  const { appId, appSecret, domain, mode, webhook } = settings;
  if (appId === null || appSecret === null) throw new Error("FEISHU_APP_ID and FEISHU_APP_SECRET must both be set");
  const api = new FeishuApi({
    appId,
    appSecret,
    baseUrl: feishuBaseUrl(domain),
    log: createLogger({ level: "silent", secrets: [] }),
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    timeoutMs: 15_000,
  });
  const bot = await api.botInfo();
  const expiry = api.tokenExpiry();
  const minutes = expiry ? Math.round((expiry.getTime() + SDK_EARLY_REFRESH_MS - Date.now()) / 60_000) : null;
  const token = minutes === null ? "tenant access token obtained" : `tenant access token obtained (valid ${minutes} min)`;
  const delivery = mode === "webhook" ? `events by webhook at ${webhook.path}` : "events by long connection";
  return `${token}; bot "${bot.name}" (${bot.openId}); ${delivery}`;
}
