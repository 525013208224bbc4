/** `switchboard doctor` for Telegram: getMe with the configured token. */
import type { Config } from "../../config/schema.js";
import { fetchJson } from "../module.js";

export const telegramFix = "check TELEGRAM_BOT_TOKEN (from @BotFather) and TELEGRAM_API_ROOT";

export async function checkTelegram(config: Config): Promise<string> {
  const { token, apiRoot } = config.channels.telegram;
  const body = (await fetchJson(`${apiRoot ?? "https://api.telegram.org"}/bot${token}/getMe`, { method: "POST" })) as {
    result?: { username?: string };
  };
  return `token valid for @${body.result?.username ?? "?"}`;
}
