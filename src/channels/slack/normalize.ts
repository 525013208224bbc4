/**
 * A validated message event -> InboundMessage. The same message arrives twice when it mentions the bot (as
 * `message` and as `app_mention`, with different event ids and the same `ts`): both become the same id,
 * `slack:<channel>:<ts>`, so the gateway answers it once. In a channel, a top-level message's reply starts a
 * thread under it; a reply in a thread stays in that thread.
 */
import type { Attachment, AttachmentKind, InboundMessage } from "../../core/types.js";
import { dateOf, isDirectChannel, PERSON_SUBTYPES, type MessageEvent, type SlackFile } from "./payload.js";

export interface SlackIdentity {
  /** The bot's user id (U...), from auth.test. */
  userId: string;
  botId: string;
}

export interface NormalizeContext {
  bot: SlackIdentity;
  /** The workspace the event came from (the callback's team_id). */
  teamId: string;
  /** Whether the bot has written in this thread: a message there is addressed to it like a reply. */
  inBotThread(channel: string, threadTs: string): boolean;
  receivedAt?: Date;
}

export type Normalized = { message: InboundMessage } | { skip: string };

export function normalizeMessage(event: MessageEvent, ctx: NormalizeContext): Normalized {
  if (!PERSON_SUBTYPES.has(event.subtype)) return { skip: `subtype ${event.subtype} is not a message written by a person` };
  if (event.user === undefined) return { skip: "no user" };
  if (event.user === ctx.bot.userId || event.bot_id === ctx.bot.botId) return { skip: "the bot's own message" };
  const direct = isDirectChannel(event.channel, event.type === "app_mention" ? "channel" : event.channel_type);
  const inThread = event.thread_ts !== undefined && event.thread_ts !== event.ts;
  const mentioned = event.type === "app_mention" || event.text.includes(`<@${ctx.bot.userId}>`);
  const threadTs = event.thread_ts ?? (direct ? undefined : event.ts);
  const message: InboundMessage = {
    id: `slack:${event.channel}:${event.ts}`,
    platformMessageId: event.ts,
    channel: "slack",
    chat: {
      id: event.channel,
      type: direct ? "direct" : "group",
      // The workspace the app is installed in, which the channel belongs to (in a shared channel the sender's own may differ).
      space: ctx.teamId,
      ...(threadTs !== undefined ? { threadId: threadTs } : {}),
    },
    sender: { id: event.user, isBot: event.bot_id !== undefined },
    text: plainText(event.text, ctx.bot.userId),
    attachments: event.files.flatMap(attachmentOf),
    mentionsBot: mentioned || (inThread && ctx.inBotThread(event.channel, event.thread_ts!)),
    receivedAt: ctx.receivedAt ?? dateOf(event.ts),
    raw: event,
    ...(inThread ? { replyTo: { messageId: event.thread_ts! } } : {}),
  };
  return { message };
}

/**
 * Slack's message text as a person reads it: <@U1> is @U1 (the bot's own mention removed), <#C1|general> is
 * #general, <!here> is @here, <url|label> is "label (url)", and the escapes &lt; &gt; &amp; are undone.
 */
export function plainText(text: string, botUserId: string): string {
  return text
    .replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>\\s?`, "g"), "")
    .replace(/<([^<>]+)>/g, (_all, inner: string) => {
      const [target, label] = splitOnce(inner);
      if (target.startsWith("@")) return `@${label ?? target.slice(1)}`;
      if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
      if (target.startsWith("!subteam^")) return label ?? "@group";
      if (target.startsWith("!")) return `@${label ?? target.slice(1).split("^")[0]}`;
      return label !== undefined && label !== target ? `${label} (${target})` : target;
    })
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}

function splitOnce(inner: string): [string, string | undefined] {
  const bar = inner.indexOf("|");
  return bar === -1 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

function attachmentOf(file: SlackFile): Attachment[] {
  const url = file.url_private_download ?? file.url_private;
  if (!url) return [];
  return [
    {
      kind: kindOf(file),
      ref: url,
      ...(file.name ? { name: file.name } : {}),
      ...(file.mimetype ? { mime: file.mimetype } : {}),
      ...(typeof file.size === "number" ? { size: file.size } : {}),
    },
  ];
}

function kindOf(file: SlackFile): AttachmentKind {
  const mime = file.mimetype ?? "";
  if (file.subtype === "slack_audio") return "voice";
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("audio/")) return "audio";
  if (mime.startsWith("video/")) return "video";
  return "file";
}
