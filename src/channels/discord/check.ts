/** `switchboard doctor` for Discord: GET /users/@me with the configured token. */
import type { Config } from "../../config/schema.js";
import { fetchJson } from "../module.js";

export const discordFix = "check DISCORD_BOT_TOKEN (Developer Portal > Bot > Reset Token) and DISCORD_API_URL";

export async function checkDiscord(config: Config): Promise<string> {
  const { token, apiUrl } = config.channels.discord;
  const body = (await fetchJson(`${apiUrl ?? "https://discord.com/api"}/v10/users/@me`, {
    headers: { Authorization: `Bot ${token}` },
  })) as { username?: string };
  return `token valid for ${body.username ?? "?"}`;
}
