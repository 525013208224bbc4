/** The Telegram channel module. */
import type { ChannelModule } from "../module.js";
import { checkTelegram, telegramFix } from "./check.js";

export const telegramChannel: ChannelModule = {
  name: "telegram",
  check: checkTelegram,
  fix: telegramFix,
};
