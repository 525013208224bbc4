/** The Discord channel module. */
import { defineChannel } from "../module.js";
import { DiscordChannel } from "./channel.js";
import { checkDiscord, discordFix } from "./check.js";
import { discordConfigSchema } from "./config.js";

export { DiscordChannel, type DiscordChannelOptions } from "./channel.js";

export const discordChannel = defineChannel({
  name: "discord",
  configSchema: discordConfigSchema,
  credentials: [{ field: "token", env: "DISCORD_BOT_TOKEN" }],
  secretPaths: ["token"],
  envOverrides: {
    DISCORD_BOT_TOKEN: { path: "token", type: "string" },
    DISCORD_API_URL: { path: "apiUrl", type: "string" },
  },
  create: ({ settings, log, store }) => {
    // The config loader refuses an enabled Discord channel without a token, so this is a programming error.
    if (settings.token === null) throw new Error("channels.discord.token is not set (set DISCORD_BOT_TOKEN)");
    return new DiscordChannel({ config: { ...settings, token: settings.token }, log, store });
  },
  check: checkDiscord,
  fix: discordFix,
});
