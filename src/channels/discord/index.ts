/** The Discord channel module. */
import type { ChannelModule } from "../module.js";
import { DiscordChannel } from "./channel.js";
import { checkDiscord, discordFix } from "./check.js";

export { DiscordChannel, type DiscordChannelOptions } from "./channel.js";

export const discordChannel: ChannelModule = {
  name: "discord",
  create: ({ config, log }) => {
    const settings = config.channels.discord;
    // The config loader refuses an enabled Discord channel without a token, so this is a programming error.
    if (settings.token === null) throw new Error("channels.discord.token is not set (set DISCORD_BOT_TOKEN)");
    return new DiscordChannel({ config: { ...settings, token: settings.token }, log });
  },
  check: checkDiscord,
  fix: discordFix,
};
