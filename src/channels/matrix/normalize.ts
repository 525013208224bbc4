/**
 * Room events as the gateway's types. A message (m.room.message) becomes an InboundMessage: text, emotes,
 * images, audio and voice messages, video, files and locations. Edits, the bot's own events and notices are not
 * messages: m.notice is what bots send, and answering it would let two bots talk to each other forever. A room
 * with two members is a direct chat; elsewhere the bot is addressed by a mention (m.mentions, a pill, its id or its
 * display name at the start) or a reply to one of its messages. Threads (m.thread) and replies (m.in_reply_to)
 * are kept, and the quoted fallback older clients put before a reply is taken off.
 */
import { z } from "zod";
import type { Attachment, InboundMessage } from "../../core/types.js";

export const roomEventSchema = z
  .object({
    type: z.string(),
    event_id: z.string().min(1),
    sender: z.string().min(1),
    origin_server_ts: z.number().optional(),
    state_key: z.string().optional(),
    content: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();

export type RoomEvent = z.output<typeof roomEventSchema>;

export interface BotIdentity {
  userId: string;
  displayName?: string;
}

export interface Relations {
  threadRoot?: string;
  inReplyTo?: string;
  /** An edit (m.replace) of an earlier event. */
  replaces?: string;
}

export function relationsOf(content: Record<string, unknown>): Relations {
  const relates = object(content["m.relates_to"]);
  if (!relates) return {};
  const reply = string(object(relates["m.in_reply_to"])?.event_id);
  const target = string(relates.event_id);
  return {
    ...(relates.rel_type === "m.thread" && target !== undefined ? { threadRoot: target } : {}),
    ...(relates.rel_type === "m.replace" && target !== undefined ? { replaces: target } : {}),
    // In a thread, a reply that only falls back to the thread's last event is no reply to a particular one.
    ...(reply !== undefined && relates.is_falling_back !== true ? { inReplyTo: reply } : {}),
  };
}

export interface MessageContext {
  roomId: string;
  bot: BotIdentity;
  direct: boolean;
  senderName?: string;
  /** The event this one answers was sent by the bot. */
  repliesToBot: boolean;
  receivedAt: Date;
}

/** The message in `event`, or undefined when it is none (an edit, an unknown msgtype, the bot itself). */
export function messageOf(event: RoomEvent, ctx: MessageContext): InboundMessage | undefined {
  if (event.type !== "m.room.message" || event.sender === ctx.bot.userId) return undefined;
  const relations = relationsOf(event.content);
  if (relations.replaces !== undefined) return undefined;
  const content = contentOf(event.content, relations.inReplyTo !== undefined);
  if (!content) return undefined;
  const mentioned = mentions(event.content, ctx.bot);
  return {
    id: `matrix:${event.event_id}`,
    platformMessageId: event.event_id,
    channel: "matrix",
    chat: { id: ctx.roomId, type: ctx.direct ? "direct" : "group", ...(relations.threadRoot !== undefined ? { threadId: relations.threadRoot } : {}) },
    sender: { id: event.sender, ...(ctx.senderName !== undefined ? { name: ctx.senderName } : {}) },
    text: mentioned ? withoutMention(content.text, ctx.bot) : content.text,
    attachments: content.attachments,
    ...(relations.inReplyTo !== undefined ? { replyTo: { messageId: relations.inReplyTo, fromBot: ctx.repliesToBot } } : {}),
    mentionsBot: mentioned || ctx.repliesToBot,
    receivedAt: ctx.receivedAt,
    raw: event,
  };
}

const MEDIA = { "m.image": "image", "m.audio": "audio", "m.video": "video", "m.file": "file" } as const;

function contentOf(content: Record<string, unknown>, isReply: boolean): { text: string; attachments: Attachment[] } | undefined {
  const msgtype = string(content.msgtype);
  const body = string(content.body) ?? "";
  if (msgtype === "m.text" || msgtype === "m.emote") {
    return { text: isReply ? withoutReplyFallback(body) : body, attachments: [] };
  }
  if (msgtype === "m.location") return { text: `[location: ${body} ${string(content.geo_uri) ?? ""}]`.replace(" ]", "]"), attachments: [] };
  if (msgtype === undefined || !(msgtype in MEDIA)) return undefined;
  const url = string(content.url);
  if (url === undefined) return undefined;
  const info = object(content.info) ?? {};
  const fileName = string(content.filename);
  const voice = msgtype === "m.audio" && content["org.matrix.msc3245.voice"] !== undefined;
  const size = number(info.size);
  const duration = number(info.duration);
  const attachment: Attachment = {
    kind: voice ? "voice" : MEDIA[msgtype as keyof typeof MEDIA],
    ref: url,
    name: fileName ?? body,
    ...(string(info.mimetype) !== undefined ? { mime: string(info.mimetype)! } : {}),
    ...(size !== undefined ? { size } : {}),
    ...(duration !== undefined ? { durationSec: Math.round(duration / 1000) } : {}),
  };
  // With a separate file name, the body is a caption (Matrix 1.10).
  return { text: fileName !== undefined && fileName !== body ? body : "", attachments: [attachment] };
}

function mentions(content: Record<string, unknown>, bot: BotIdentity): boolean {
  const ids = object(content["m.mentions"])?.user_ids;
  if (Array.isArray(ids) && ids.includes(bot.userId)) return true;
  const body = string(content.body) ?? "";
  const html = string(content.formatted_body) ?? "";
  if (body.includes(bot.userId) || html.includes(`matrix.to/#/${bot.userId}`) || html.includes(`matrix.to/#/${encodeURIComponent(bot.userId)}`)) return true;
  return bot.displayName !== undefined && new RegExp(`^${escapeRegExp(bot.displayName)}\\b`, "i").test(body.trim());
}

function withoutMention(text: string, bot: BotIdentity): string {
  let out = text.split(bot.userId).join(" ");
  if (bot.displayName !== undefined) out = out.replace(new RegExp(`^\\s*${escapeRegExp(bot.displayName)}\\b[:,]?`, "i"), "");
  return out.replace(/^[\s:,]+/, "").replace(/ {2,}/g, " ").trim();
}

/** Older clients quote the answered message as "> <@user:server> text" lines and a blank line before the reply. */
function withoutReplyFallback(body: string): string {
  const lines = body.split("\n");
  if (!lines[0]?.startsWith("> ")) return body;
  const end = lines.findIndex((line) => !line.startsWith(">"));
  return end === -1 ? body : lines.slice(end).join("\n").replace(/^\n/, "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function object(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function string(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
