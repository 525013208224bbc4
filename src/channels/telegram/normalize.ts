/**
 * A Telegram update -> the normalized InboundMessage, or the reason it is not one. Pure: the channel decides what
 * to log and acknowledges every update either way.
 */
import type { Attachment, InboundMessage } from "../../core/types.js";
import { messageSchema, type RawUpdate, type TelegramChat, type TelegramEntity, type TelegramMessage, type TelegramUser } from "./schema.js";

export interface BotIdentity {
  id: number;
  username: string;
}

export interface NormalizeOptions {
  bot: BotIdentity;
  /** An edited message becomes a new InboundMessage instead of being ignored. */
  handleEdits: boolean;
}

export type Normalized =
  | { ok: true; message: InboundMessage }
  /** `expected`: a kind of update the channel does not handle (debug); otherwise a payload that is wrong (warn). */
  | { ok: false; reason: string; expected: boolean };

export function normalizeUpdate(update: RawUpdate, opts: NormalizeOptions): Normalized {
  const edited = update.edited_message !== undefined && update.message === undefined;
  const payload = update.message ?? update.edited_message;
  if (payload === undefined) {
    const kind = Object.keys(update).find((key) => key !== "update_id") ?? "empty";
    return { ok: false, reason: `update of kind ${kind} is not handled`, expected: true };
  }
  if (edited && !opts.handleEdits) return { ok: false, reason: "edited message ignored", expected: true };
  const parsed = messageSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `malformed message: ${issue?.path.join(".") || "message"}: ${issue?.message}`, expected: false };
  }
  const m = parsed.data;
  if (m.chat.type === "channel") return { ok: false, reason: "channel posts are not handled", expected: true };
  const sender = senderOf(m);
  if (!sender) return { ok: false, reason: "message without a sender", expected: false };
  return { ok: true, message: toInbound(m, update, sender, opts, edited) };
}

function toInbound(
  m: TelegramMessage,
  update: RawUpdate,
  sender: InboundMessage["sender"],
  opts: NormalizeOptions,
  edited: boolean,
): InboundMessage {
  const addressed = addressing(m.text ?? m.caption ?? "", m.entities ?? m.caption_entities ?? [], opts.bot);
  const replyTo = replyOf(m, opts.bot);
  const forwardedFrom = m.forward_origin ? forwardName(m.forward_origin) : undefined;
  const suffix = edited ? `:edit:${m.edit_date ?? m.date}` : "";
  return {
    id: `telegram:${m.chat.id}:${m.message_id}${suffix}`,
    platformMessageId: String(m.message_id),
    channel: "telegram",
    chat: {
      id: String(m.chat.id),
      type: m.chat.type === "private" ? "direct" : "group",
      title: m.chat.title ?? fullName(m.chat),
      // Outside forum topics message_thread_id names a reply thread, which sending cannot target.
      threadId: m.is_topic_message && m.message_thread_id !== undefined ? String(m.message_thread_id) : undefined,
    },
    sender,
    text: forwardedFrom !== undefined ? `[forwarded from ${forwardedFrom}]\n${addressed.text}` : addressed.text,
    attachments: attachmentsOf(m),
    replyTo,
    mentionsBot: addressed.toBot || replyTo?.fromBot === true,
    receivedAt: new Date((edited ? (m.edit_date ?? m.date) : m.date) * 1000),
    ...(m.from?.language_code && !m.sender_chat ? { locale: m.from.language_code } : {}),
    raw: update,
  };
}

/** The person, or the chat posting as itself (an anonymous group admin, a linked channel). */
function senderOf(m: TelegramMessage): InboundMessage["sender"] | undefined {
  if (m.sender_chat) {
    return { id: String(m.sender_chat.id), name: m.sender_chat.title ?? fullName(m.sender_chat), username: m.sender_chat.username, isBot: false };
  }
  if (!m.from) return undefined;
  return { id: String(m.from.id), name: fullName(m.from), username: m.from.username, isBot: m.from.is_bot };
}

function fullName(who: TelegramUser | TelegramChat): string | undefined {
  const name = [who.first_name, who.last_name].filter((part) => part !== undefined && part !== "").join(" ");
  return name === "" ? undefined : name;
}

/**
 * Whether the text addresses this bot (an @mention, or a command at its start that is bare or names this bot), and
 * the text with the bot's mention removed and `/cmd@thisbot` shortened to `/cmd`. A bare command counts: Telegram
 * clients append the bot's name on their own when a group has several bots.
 */
function addressing(text: string, entities: TelegramEntity[], bot: BotIdentity): { text: string; toBot: boolean } {
  const me = bot.username.toLowerCase();
  let toBot = false;
  const cuts: Array<{ start: number; end: number; replacement: string }> = [];
  for (const entity of entities) {
    const end = entity.offset + entity.length;
    if (end > text.length) continue;
    const slice = text.slice(entity.offset, end);
    if (entity.type === "mention" && slice.toLowerCase() === `@${me}`) {
      toBot = true;
      cuts.push({ start: entity.offset, end, replacement: "" });
    } else if (entity.type === "bot_command" && entity.offset === 0) {
      const [command, target] = slice.split("@");
      if (target === undefined || target.toLowerCase() === me) {
        toBot = true;
        cuts.push({ start: entity.offset, end, replacement: command ?? slice });
      }
    }
  }
  let out = text;
  for (const cut of cuts.sort((a, b) => b.start - a.start)) out = out.slice(0, cut.start) + cut.replacement + out.slice(cut.end);
  return { text: cuts.length > 0 ? out.replace(/[ \t]{2,}/g, " ").trim() : text, toBot };
}

function replyOf(m: TelegramMessage, bot: BotIdentity): InboundMessage["replyTo"] {
  const replied = m.reply_to_message;
  if (!replied || replied.forum_topic_created !== undefined) return undefined;
  return { messageId: String(replied.message_id), text: replied.text ?? replied.caption, fromBot: replied.from?.id === bot.id };
}

function forwardName(origin: NonNullable<TelegramMessage["forward_origin"]>): string {
  if (origin.sender_user) return fullName(origin.sender_user) ?? origin.sender_user.username ?? "a user";
  if (origin.sender_user_name) return origin.sender_user_name;
  const chat = origin.sender_chat ?? origin.chat;
  return chat?.title ?? "a hidden sender";
}

function attachmentsOf(m: TelegramMessage): Attachment[] {
  const out: Attachment[] = [];
  if (m.photo) {
    // Telegram lists the sizes of one photo, smallest first; the largest is the one worth reading.
    const largest = m.photo.reduce((a, b) => (b.width * b.height >= a.width * a.height ? b : a));
    out.push({ kind: "image", ref: largest.file_id, mime: "image/jpeg", size: largest.file_size });
  }
  // An animation also arrives as `document`; one attachment is enough.
  if (m.animation) out.push(mediaAttachment("video", m.animation, m.animation.duration));
  else if (m.document) out.push(mediaAttachment(m.document.mime_type?.startsWith("image/") ? "image" : "file", m.document));
  if (m.voice) out.push({ ...mediaAttachment("voice", m.voice, m.voice.duration), mime: m.voice.mime_type ?? "audio/ogg" });
  if (m.audio) out.push({ ...mediaAttachment("audio", m.audio, m.audio.duration), name: m.audio.file_name ?? m.audio.title });
  if (m.video) out.push(mediaAttachment("video", m.video, m.video.duration));
  if (m.video_note) out.push({ ...mediaAttachment("video", m.video_note, m.video_note.duration), mime: "video/mp4" });
  if (m.sticker) {
    const { sticker } = m;
    const mime = sticker.is_animated ? "application/x-tgsticker" : sticker.is_video ? "video/webm" : "image/webp";
    out.push({ kind: "sticker", ref: sticker.file_id, mime, size: sticker.file_size, name: sticker.emoji });
  }
  return out;
}

function mediaAttachment(
  kind: Attachment["kind"],
  media: { file_id: string; file_size?: number; file_name?: string; mime_type?: string },
  durationSec?: number,
): Attachment {
  return { kind, ref: media.file_id, name: media.file_name, mime: media.mime_type, size: media.file_size, durationSec };
}
