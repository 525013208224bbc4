/** The Telegram channel module. */
import { defineChannel } from "../module.js";
import { TelegramChannel, type TelegramChannelOptions } from "./channel.js";
import { checkTelegram, telegramFix } from "./check.js";
import { telegramConfigSchema } from "./config.js";

export { TelegramChannel, type TelegramChannelOptions };

export const telegramChannel = defineChannel({
  name: "telegram",
  configSchema: telegramConfigSchema,
  credentials: [{ field: "token", env: "TELEGRAM_BOT_TOKEN" }],
  secretPaths: ["token", "webhook.secretToken"],
  envOverrides: {
    TELEGRAM_BOT_TOKEN: { path: "token", type: "string" },
    TELEGRAM_API_ROOT: { path: "apiRoot", type: "string" },
  },
  create: ({ settings, store, log, http, clock, speechOf }) => {
    // The config loader refuses an enabled channel without a token; this only narrows the type.
    if (settings.token === null) throw new Error("channels.telegram.token is not set (TELEGRAM_BOT_TOKEN)");
    return new TelegramChannel({ settings, token: settings.token, store, log, http, ...(clock ? { clock } : {}), ...(speechOf ? { speechOf } : {}) });
  },
  check: checkTelegram,
  fix: telegramFix,
});
