/**
 * QQ message events turned into InboundMessages. Chats are named by kind, since each is answered through its own
 * API: `c2c:<user_openid>` (private), `group:<group_openid>`, `channel:<channel_id>` (a guild's text channel) and
 * `dm:<guild_id>` (a guild direct message). Group and channel events reach the bot only when it is @-mentioned.
 */
import { z } from "zod";
import type { Attachment, AttachmentKind, InboundMessage } from "../../core/types.js";

export const MESSAGE_EVENTS = ["C2C_MESSAGE_CREATE", "GROUP_AT_MESSAGE_CREATE", "AT_MESSAGE_CREATE", "DIRECT_MESSAGE_CREATE"] as const;
export type MessageEventType = (typeof MESSAGE_EVENTS)[number];

const attachmentSchema = z.looseObject({ content_type: z.string().optional(), filename: z.string().optional(), size: z.number().optional(), url: z.string().min(1) });

export const messageSchema = z.looseObject({
  id: z.string().min(1),
  content: z.string().default(""),
  timestamp: z.string().optional(),
  author: z.looseObject({ id: z.string().optional(), user_openid: z.string().optional(), member_openid: z.string().optional(), username: z.string().optional(), bot: z.boolean().optional() }),
  group_openid: z.string().optional(),
  channel_id: z.string().optional(),
  guild_id: z.string().optional(),
  attachments: z.array(attachmentSchema).optional(),
});

export type QqMessage = z.output<typeof messageSchema>;

export function isMessageEvent(type: string | undefined): type is MessageEventType {
  return (MESSAGE_EVENTS as readonly string[]).includes(type ?? "");
}

/** The InboundMessage, or why the event cannot be one. */
export function toInboundMessage(type: MessageEventType, message: QqMessage): InboundMessage | string {
  const target = chatOf(type, message);
  if (typeof target === "string") return target;
  const senderId = message.author.user_openid ?? message.author.member_openid ?? message.author.id;
  if (!senderId) return "the author has no id";
  const text = message.content.replace(/<@!?[^>\s]+>/g, "").trim();
  const received = message.timestamp ? new Date(message.timestamp) : new Date();
  return {
    id: `qq:${message.id}`,
    platformMessageId: message.id,
    channel: "qq",
    chat: target,
    sender: { id: senderId, ...(message.author.username ? { name: message.author.username } : {}), ...(message.author.bot ? { isBot: true } : {}) },
    text,
    attachments: (message.attachments ?? []).map(attachmentOf),
    // Group and channel events are @-mentions by their kind.
    mentionsBot: true,
    receivedAt: Number.isNaN(received.getTime()) ? new Date() : received,
  };
}

function chatOf(type: MessageEventType, message: QqMessage): InboundMessage["chat"] | string {
  switch (type) {
    case "C2C_MESSAGE_CREATE":
      return message.author.user_openid ? { id: `c2c:${message.author.user_openid}`, type: "direct" } : "a private message without the user's openid";
    case "GROUP_AT_MESSAGE_CREATE":
      return message.group_openid ? { id: `group:${message.group_openid}`, type: "group" } : "a group message without group_openid";
    case "AT_MESSAGE_CREATE":
      return message.channel_id ? { id: `channel:${message.channel_id}`, type: "group", ...(message.guild_id ? { space: message.guild_id } : {}) } : "a channel message without channel_id";
    case "DIRECT_MESSAGE_CREATE":
      return message.guild_id ? { id: `dm:${message.guild_id}`, type: "direct" } : "a direct message without guild_id";
  }
}

function attachmentOf(attachment: z.output<typeof attachmentSchema>): Attachment {
  const type = attachment.content_type ?? "";
  const kind: AttachmentKind = type.startsWith("image/") ? "image" : type === "voice" || type.startsWith("audio/") ? "voice" : type.startsWith("video/") ? "video" : "file";
  // Attachment URLs sometimes come without a scheme.
  const ref = attachment.url.startsWith("//") ? `https:${attachment.url}` : attachment.url.startsWith("http") ? attachment.url : `https://${attachment.url}`;
  return { kind, ref, ...(attachment.filename ? { name: attachment.filename } : {}), ...(type ? { mime: type } : {}), ...(attachment.size ? { size: attachment.size } : {}) };
}
