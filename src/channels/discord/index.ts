/** The Discord channel module. discord.js (about 40 MB) is loaded only when the channel runs or is checked. */
import { defineChannel } from "../module.js";
import { discordConfigSchema } from "./config.js";
import { discordFix } from "./fixes.js";

export type { DiscordChannel, DiscordChannelOptions } from "./channel.js";

export const discordChannel = defineChannel({
  name: "discord",
  configSchema: discordConfigSchema,
  credentials: [{ field: "token", env: "DISCORD_BOT_TOKEN" }],
  secretPaths: ["token"],
  envOverrides: {
    DISCORD_BOT_TOKEN: { path: "token", type: "string" },
    DISCORD_API_URL: { path: "apiUrl", type: "string" },
  },
  create: async ({ settings, log, store, clock }) => {
    // The config loader refuses an enabled Discord channel without a token, so this is a programming error.
    if (settings.token === null) throw new Error("channels.discord.token is not set (set DISCORD_BOT_TOKEN)");
    const { DiscordChannel } = await import("./channel.js");
    return new DiscordChannel({ config: { ...settings, token: settings.token }, log, store, ...(clock ? { clock } : {}) });
  },
  check: async (settings) => (await import("./check.js")).checkDiscord(settings),
  fix: discordFix,
});
