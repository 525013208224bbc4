/**
 * A validated MESSAGE_CREATE payload -> InboundMessage. Pure: what it needs beyond the payload (the bot's id,
 * channel names and types, role names) comes from a DiscordDirectory, which the channel backs with discord.js's
 * caches and tests back with plain objects.
 *
 * Threads and forum posts are channels of their own in Discord; here the chat is the parent channel and the
 * thread is `chat.threadId`, so channel-level settings cover their threads and replies go back into the thread.
 */
import type { Attachment, ChatRef, InboundMessage, SenderRef } from "../../core/types.js";
import { toAttachment } from "./attachments.js";
import { mentionsBot, renderContent, type MentionLookup, type RoleInfo } from "./mentions.js";
import { displayName, THREAD_TYPES, USER_MESSAGE_TYPES, VOICE_MESSAGE_FLAG, type MentionedUser, type MessageCreate } from "./payload.js";

export interface ChannelInfo {
  name?: string;
  type: number;
  parentId?: string;
}

export interface DiscordDirectory {
  botId: string;
  channel(id: string): ChannelInfo | undefined;
  role(guildId: string, roleId: string): RoleInfo | undefined;
}

export type Normalized = { message: InboundMessage } | { skip: string };

/** message_reference.type of a forward: it quotes another message but is not a reply. */
const FORWARD = 1;

export function normalizeMessage(payload: MessageCreate, dir: DiscordDirectory, receivedAt = new Date()): Normalized {
  if (!USER_MESSAGE_TYPES.has(payload.type)) return { skip: `message type ${payload.type} is not written by a person` };
  const lookupFor = (users: readonly MentionedUser[]): MentionLookup => ({
    botId: dir.botId,
    users,
    role: (roleId) => (payload.guild_id === undefined ? undefined : dir.role(payload.guild_id, roleId)),
    channelName: (channelId) => dir.channel(channelId)?.name,
  });
  const lookup = lookupFor(payload.mentions);
  const replyTo = replyOf(payload, (content, users) => renderContent(content, lookupFor(users)), dir.botId);
  const addressed =
    mentionsBot(payload.content, payload.mentions.map((u) => u.id), payload.mention_roles, lookup) || replyTo?.fromBot === true;

  const message: InboundMessage = {
    id: `discord:${payload.id}`,
    platformMessageId: payload.id,
    channel: "discord",
    chat: chatOf(payload.channel_id, payload.guild_id, dir),
    sender: senderOf(payload),
    text: renderContent(payload.content, lookup),
    attachments: attachmentsOf(payload),
    mentionsBot: addressed,
    receivedAt: sentAt(payload.timestamp) ?? receivedAt,
    raw: payload,
    ...(replyTo ? { replyTo } : {}),
  };
  return { message };
}

/** The chat of a channel id: a thread's chat is its parent channel, with the thread as threadId. */
export function chatOf(channelId: string, guildId: string | undefined, dir: DiscordDirectory): ChatRef {
  if (guildId === undefined) return { id: channelId, type: "direct" };
  const channel = dir.channel(channelId);
  if (channel && THREAD_TYPES.has(channel.type) && channel.parentId !== undefined) {
    const parent = dir.channel(channel.parentId)?.name;
    const title = [parent !== undefined ? `#${parent}` : undefined, channel.name].filter((part) => part !== undefined).join(" › ");
    return { id: channel.parentId, type: "group", threadId: channelId, space: guildId, ...(title ? { title } : {}) };
  }
  return { id: channelId, type: "group", space: guildId, ...(channel?.name !== undefined ? { title: `#${channel.name}` } : {}) };
}

function senderOf(payload: MessageCreate): SenderRef {
  const { author, member } = payload;
  return {
    id: author.id,
    name: displayName(author, member?.nick),
    username: author.username,
    isBot: author.bot === true,
    ...(payload.guild_id !== undefined ? { roles: member?.roles ?? [] } : {}),
  };
}

function attachmentsOf(payload: MessageCreate): Attachment[] {
  const voice = ((payload.flags ?? 0) & VOICE_MESSAGE_FLAG) !== 0;
  return payload.attachments.map((raw) => toAttachment(raw, voice));
}

function replyOf(
  payload: MessageCreate,
  render: (content: string, users: readonly MentionedUser[]) => string,
  botId: string,
): InboundMessage["replyTo"] {
  const reference = payload.message_reference;
  if (reference?.message_id === undefined || reference.type === FORWARD) return undefined;
  const quoted = payload.referenced_message;
  if (!quoted) return { messageId: reference.message_id };
  return { messageId: reference.message_id, text: render(quoted.content, quoted.mentions), fromBot: quoted.author.id === botId };
}

function sentAt(timestamp: string | undefined): Date | undefined {
  const date = timestamp === undefined ? undefined : new Date(timestamp);
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
