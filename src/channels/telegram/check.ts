/** `switchboard doctor` for Telegram: getMe with the configured token, then how updates reach the bot. */
import type { WebhookInfo } from "grammy/types";
import { createApi, describeTelegramError } from "./api.js";
import type { TelegramConfig } from "./config.js";

export const telegramFix = "check TELEGRAM_BOT_TOKEN (from @BotFather) and TELEGRAM_API_ROOT";

const CHECK_TIMEOUT_SECONDS = 15;

export async function checkTelegram(settings: TelegramConfig): Promise<string> {
  const { token, apiRoot, mode } = settings;
  if (token === null) throw new Error("no bot token configured");
  const api = createApi({ token, apiRoot, timeoutSeconds: CHECK_TIMEOUT_SECONDS });
  try {
    const me = await api.getMe();
    const webhook = await api.getWebhookInfo();
    return `token valid for @${me.username} (id ${me.id}); ${describeWebhook(webhook, mode)}`;
  } catch (err) {
    throw new Error(describeTelegramError(err), { cause: err });
  }
}

function describeWebhook(info: WebhookInfo, mode: "polling" | "webhook"): string {
  const pending = `${info.pending_update_count} update${info.pending_update_count === 1 ? "" : "s"} pending`;
  if (!info.url) {
    return mode === "webhook" ? `no webhook set yet (start sets it); ${pending}` : `no webhook set, long polling; ${pending}`;
  }
  const lastError = info.last_error_message ? `; last delivery error: ${info.last_error_message}` : "";
  const conflict = mode === "polling" ? " (start removes it to poll)" : "";
  return `webhook ${info.url}${conflict}; ${pending}${lastError}`;
}
