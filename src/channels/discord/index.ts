/** The Discord channel module. */
import type { ChannelModule } from "../module.js";
import { checkDiscord, discordFix } from "./check.js";

export const discordChannel: ChannelModule = {
  name: "discord",
  check: checkDiscord,
  fix: discordFix,
};
