/**
 * Discord's markup for mentions, rendered as a person reads it: <@id> -> @name, <@&id> -> @role, <#id> -> #channel,
 * <:emoji:id> -> :emoji:, </command:id> -> /command. Mentions of the bot (its user or its managed role) are removed,
 * so the model sees what was asked, not how the bot was called.
 */
import type { APIAllowedMentions } from "discord.js";
import { displayName, type MentionedUser } from "./payload.js";

/**
 * What the bot's messages may ping: only the person answered, never @everyone, roles or users its text names (the
 * model's words, or a user's it quotes). Sent with every create, edit and interaction response: an edit without
 * it parses mentions with Discord's defaults (everyone, roles, users), so a streamed reply's final edit would ping.
 */
export const ALLOWED_MENTIONS = { parse: [], replied_user: true } satisfies APIAllowedMentions;

export interface RoleInfo {
  name: string;
  /** Set for a bot's managed role: mentioning the role addresses that bot. */
  botId?: string;
}

export interface MentionLookup {
  botId: string;
  /** Users mentioned in the message, as Discord lists them beside the content. */
  users: readonly MentionedUser[];
  role(roleId: string): RoleInfo | undefined;
  channelName(channelId: string): string | undefined;
}

const MARKUP = /<(@!?|@&|#)(\d{1,20})>|<a?:(\w{1,32}):\d{1,20}>|<\/([^:<>\n]{1,100}):\d{1,20}>/g;
/** Marks where a mention of the bot was; U+FFFF is a noncharacter, never in real text. */
const REMOVED = "\uffff";

export function renderContent(content: string, lookup: MentionLookup): string {
  const userNames = new Map(lookup.users.map((u) => [u.id, displayName(u, u.member?.nick)]));
  const rendered = content.replace(MARKUP, (token, sigil: string | undefined, id: string | undefined, emoji?: string, command?: string) => {
    if (emoji !== undefined) return `:${emoji}:`;
    if (command !== undefined) return `/${command}`;
    if (sigil === "#") return withFallback("#", lookup.channelName(id!), token);
    if (sigil === "@&") {
      const role = lookup.role(id!);
      return role?.botId === lookup.botId ? REMOVED : withFallback("@", role?.name, token);
    }
    return id === lookup.botId ? REMOVED : withFallback("@", userNames.get(id!), token);
  });
  if (!rendered.includes(REMOVED)) return rendered;
  return rendered
    .replace(/[ \t]*\uffff[ \t]*/g, " ")
    .trim()
    .replace(/^[,:;]\s*/, "");
}

/** Whether the bot's user or its managed role is mentioned. */
export function mentionsBot(content: string, mentionedUserIds: readonly string[], mentionedRoleIds: readonly string[], lookup: MentionLookup): boolean {
  if (mentionedUserIds.includes(lookup.botId)) return true;
  if (mentionedRoleIds.some((id) => lookup.role(id)?.botId === lookup.botId)) return true;
  // The lists can be empty when the payload was trimmed; the markup in the text still counts.
  return content.includes(`<@${lookup.botId}>`) || content.includes(`<@!${lookup.botId}>`);
}

function withFallback(sigil: string, name: string | undefined, token: string): string {
  return name === undefined ? token : `${sigil}${name}`;
}
