/** `switchboard doctor` for Feishu/Lark: fetches a tenant access token with the app's credentials. */
import type { Config } from "../../config/schema.js";
import { fetchJson } from "../module.js";

export const feishuFix = "check FEISHU_APP_ID / FEISHU_APP_SECRET and FEISHU_DOMAIN";

export function feishuBaseUrl(domain: string): string {
  if (domain === "feishu") return "https://open.feishu.cn";
  if (domain === "lark") return "https://open.larksuite.com";
  return domain;
}

export async function checkFeishu(config: Config): Promise<string> {
  const { appId, appSecret, domain } = config.channels.feishu;
  const body = (await fetchJson(`${feishuBaseUrl(domain)}/open-apis/auth/v3/tenant_access_token/internal`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ app_id: appId, app_secret: appSecret }),
  })) as { code?: number; msg?: string };
  if (body.code !== 0) throw new Error(`Feishu answered code ${String(body.code)}: ${body.msg ?? ""}`);
  return "app credentials valid";
}
