/** The DiscordDirectory normalization reads, backed by a discord.js client's caches (filled from GUILD_CREATE etc.). */
import type { Client } from "discord.js";
import type { DiscordDirectory } from "./normalize.js";

/** undefined until the gateway's READY has told the client who it is. */
export function clientDirectory(client: Client): DiscordDirectory | undefined {
  const botId = client.user?.id;
  if (botId === undefined) return undefined;
  return {
    botId,
    channel(id) {
      const channel = client.channels.cache.get(id);
      if (!channel) return undefined;
      const name = "name" in channel && typeof channel.name === "string" ? channel.name : undefined;
      const parentId = "parentId" in channel ? (channel.parentId ?? undefined) : undefined;
      return { type: channel.type, ...(name !== undefined ? { name } : {}), ...(parentId !== undefined ? { parentId } : {}) };
    },
    role(guildId, roleId) {
      const role = client.guilds.cache.get(guildId)?.roles.cache.get(roleId);
      if (!role) return undefined;
      return { name: role.name, ...(role.tags?.botId ? { botId: role.tags.botId } : {}) };
    },
  };
}
