/** Which configured group entry covers a group message: the chat itself first, then its space (a Discord server, a Slack workspace). */
import type { InboundMessage } from "../core/types.js";
import type { AccessConfig, GroupEntry } from "./config.js";

export class GroupRules {
  private readonly byChat = new Map<string, GroupEntry>();
  private readonly bySpace = new Map<string, GroupEntry>();

  constructor(entries: readonly GroupEntry[]) {
    for (const entry of entries) {
      if (entry.chat !== undefined) this.byChat.set(entry.chat, entry);
      if (entry.space !== undefined) this.bySpace.set(entry.space, entry);
    }
  }

  entryFor(message: InboundMessage): GroupEntry | undefined {
    const chat = this.byChat.get(`${message.channel}:${message.chat.id}`);
    if (chat) return chat;
    const { space } = message.chat;
    if (space === undefined) return undefined;
    const entry = this.bySpace.get(`${message.channel}:${space}`);
    if (!entry) return undefined;
    return entry.channels.length === 0 || entry.channels.includes(message.chat.id) ? entry : undefined;
  }
}

/** Whether the sender holds one of the roles the entry requires (entries without roles admit everyone). */
export function senderQualifies(entry: GroupEntry, message: InboundMessage): boolean {
  if (entry.roles.length === 0) return true;
  return (message.sender.roles ?? []).some((role) => entry.roles.includes(role));
}

export function requiresMention(entry: GroupEntry | undefined, config: AccessConfig): boolean {
  return entry?.requireMention ?? config.requireMention;
}
