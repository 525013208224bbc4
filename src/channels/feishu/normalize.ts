/**
 * An `im.message.receive_v1` event turned into the gateway's InboundMessage. The event is validated here, at the
 * edge; what fails validation is reported to the caller, which logs and acknowledges it.
 */
import { z } from "zod";
import type { InboundMessage } from "../../core/types.js";
import { parseContent } from "./content.js";
import { Mentions } from "./mentions.js";

const optionalId = z.string().nullish();
const userIdSchema = z.object({ open_id: optionalId, user_id: optionalId, union_id: optionalId });

/** The sender as the gateway sees it: open_id first (what access lists hold), user_id as a second name. */
const senderSchema = z
  .object({ sender_id: userIdSchema.nullish(), sender_type: z.string().nullish() })
  .transform((sender, ctx) => {
    const ids = sender.sender_id;
    const id = nonEmpty(ids?.open_id) ?? nonEmpty(ids?.user_id) ?? nonEmpty(ids?.union_id);
    if (id === undefined) {
      ctx.addIssue({ code: "custom", message: "the sender has no open_id, user_id or union_id" });
      return z.NEVER;
    }
    return { id, userId: nonEmpty(ids?.user_id), isBot: sender.sender_type !== "user" };
  });

export const messageEventSchema = z.object({
  sender: senderSchema,
  message: z.object({
    message_id: z.string().min(1),
    root_id: optionalId,
    parent_id: optionalId,
    thread_id: optionalId,
    create_time: z.string().nullish(),
    chat_id: z.string().min(1),
    chat_type: z.string(),
    message_type: z.string(),
    content: z.string(),
    mentions: z.array(z.object({ key: z.string(), id: userIdSchema.nullish(), name: z.string().nullish() })).nullish(),
  }),
});

export type MessageEvent = z.output<typeof messageEventSchema>;

export interface NormalizeContext {
  /** The bot's own open_id, to find its mention. */
  botOpenId: string;
  /** The message answers one the bot sent. */
  repliesToBot: boolean;
}

export function toInboundMessage(event: MessageEvent, ctx: NormalizeContext): InboundMessage {
  const { message, sender } = event;
  const mentions = new Mentions(message.mentions ?? [], ctx.botOpenId);
  const { text, attachments } = parseContent(message.message_type, message.content, message.message_id, mentions);
  const parentId = nonEmpty(message.parent_id);
  const threadId = threadOf(message);
  return {
    id: `feishu:${message.message_id}`,
    platformMessageId: message.message_id,
    channel: "feishu",
    chat: { id: message.chat_id, type: message.chat_type === "p2p" ? "direct" : "group", ...(threadId ? { threadId } : {}) },
    sender: { id: sender.id, ...(sender.userId ? { username: sender.userId } : {}), isBot: sender.isBot },
    text,
    attachments,
    ...(parentId ? { replyTo: { messageId: parentId, fromBot: ctx.repliesToBot } } : {}),
    mentionsBot: mentions.mentionsBot || ctx.repliesToBot,
    receivedAt: timeOf(message.create_time),
    raw: event,
  };
}

/**
 * A message in a thread is answered by replying "in thread" to a message of that thread, so the thread is named
 * by its root message (the message itself when it starts the thread); Feishu's thread_id only says there is one.
 */
function threadOf(message: MessageEvent["message"]): string | undefined {
  if (!nonEmpty(message.thread_id)) return undefined;
  return nonEmpty(message.root_id) ?? message.message_id;
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value ? value : undefined;
}

/** Feishu's create_time is milliseconds since the epoch, as a string. */
function timeOf(createTime: string | null | undefined): Date {
  const date = new Date(Number(createTime));
  return createTime && date.getTime() > 0 ? date : new Date();
}
