/** The Telegram channel module. */
import type { ChannelModule } from "../module.js";
import { TelegramChannel, type TelegramChannelOptions } from "./channel.js";
import { checkTelegram, telegramFix } from "./check.js";

export { TelegramChannel, type TelegramChannelOptions };

export const telegramChannel: ChannelModule = {
  name: "telegram",
  create: ({ config, store, log, http }) => {
    const settings = config.channels.telegram;
    // The schema refuses an enabled channel without a token; this only narrows the type.
    if (settings.token === null) throw new Error("channels.telegram.token is not set (TELEGRAM_BOT_TOKEN)");
    return new TelegramChannel({ settings, token: settings.token, store, log, http });
  },
  check: checkTelegram,
  fix: telegramFix,
};
