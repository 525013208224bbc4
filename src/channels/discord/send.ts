/**
 * Sending to Discord over REST (@discordjs/rest, told neither to retry nor to wait out a 429: failures are
 * classified as SendError for the one outbound policy, src/gateway/outbound-service.ts). Markdown goes out as
 * is, since Discord renders it; long text is split at 2000 characters and 17 lines without breaking code blocks.
 * The first message answers the triggering one; the bot's messages ping nobody but the person answered, and
 * link previews are off unless configured. Files go as multipart attachments within the upload limit.
 *
 * A send with an idempotency key carries a nonce derived from it, which Discord enforces: a message the bot
 * created with the same nonce in the last few minutes is answered instead of a new one. An attempt that may have
 * arrived (no answer) is then safe to repeat within that time, which its SendError says (repeatableUntil).
 */
import { LRUCache } from "lru-cache";
import { readFile, stat } from "node:fs/promises";
import { DiscordAPIError, HTTPError, MessageFlags, RateLimitError, RESTJSONErrorCodes, Routes, type REST, type RESTPostAPIChannelMessageJSONBody } from "discord.js";
import { httpFailure, networkFailure, SendError, type SendFailure } from "../../core/send-error.js";
import { z } from "zod";
import { partKey } from "../../core/ids.js";
import { chunkText, codePointLength } from "../../core/text.js";
import type { ButtonRow, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import { mib } from "./attachments.js";
import { componentsOf, isSlashReference, type SlashReplies } from "./interactions.js";
import { ALLOWED_MENTIONS } from "./mentions.js";

export const MAX_MESSAGE_LENGTH = 2000;
/** Discord collapses taller messages behind "show more". */
export const MAX_MESSAGE_LINES = 17;
/** A message nonce is at most 25 characters. */
const NONCE_CHARS = 25;
/** Discord checks an enforced nonce against "the past few minutes": two, to be safe. */
const NONCE_WINDOW_MS = 2 * 60_000;

export interface OutboundOptions {
  rest: REST;
  suppressEmbeds: boolean;
  maxUploadBytes: number;
  /** Slash commands whose replies go through their interaction's webhook. */
  slashReplies?: SlashReplies;
}

interface MessageRequest {
  body: RESTPostAPIChannelMessageJSONBody;
  files?: Array<{ name: string; data: Buffer; contentType?: string }>;
}

/** The nonce of one part of a send, when the send has an idempotency key. */
function nonceOf(key: string | undefined, part: number | string): string | undefined {
  return key === undefined ? undefined : partKey(key, part, NONCE_CHARS);
}

const createdMessageSchema = z.object({ id: z.string(), timestamp: z.string().optional() });

export function splitMessage(text: string): string[] {
  return chunkText(text, { maxLength: MAX_MESSAGE_LENGTH, maxLines: MAX_MESSAGE_LINES, measure: codePointLength });
}

export class DiscordOutbound {
  /** User id -> DM channel id, for targets addressed by user. */
  /** user id -> their DM channel; bounded, since a forgotten one is only reopened (one more call). */
  private readonly directChannels = new LRUCache<string, string>({ max: 10_000 });

  constructor(private readonly opts: OutboundOptions) {}

  /** Sends the parts from `opts.fromPart` on; a failure carries the parts that did arrive (SendError.sent). */
  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const chunks = splitMessage(text);
    const sent: SentMessage[] = [];
    const webhook = this.opts.slashReplies?.webhookFor(opts.replyTo);
    // A slash command whose token expired (a restart) is answered with a plain message.
    const replyTo = isSlashReference(opts.replyTo) ? undefined : opts.replyTo;
    for (const [index, content] of chunks.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const what = `message ${index + 1} of ${chunks.length}`;
      const buttons = index === chunks.length - 1 ? opts.buttons : undefined;
      try {
        if (webhook) {
          // The first part replaces the command's "thinking…"; the rest follow it.
          const route = index === 0 ? Routes.webhookMessage(webhook.applicationId, webhook.token, "@original") : Routes.webhook(webhook.applicationId, webhook.token);
          const body = this.messageBody(content, undefined, buttons);
          sent.push(await this.posted(to, what, index === 0 ? this.opts.rest.patch(route, { body, auth: false }) : this.opts.rest.post(route, { body, auth: false })));
        } else {
          sent.push(await this.sendChunk(to, content, index === 0 ? replyTo : undefined, what, buttons, nonceOf(opts.idempotencyKey, index)));
        }
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    if (webhook) this.opts.slashReplies?.finish(opts.replyTo);
    return sent;
  }

  /** A slash command that got no answer (not allowed here, a duplicate): its "thinking…" is taken away. */
  async dropSlashAnswer(replyTo: string): Promise<boolean> {
    const webhook = this.opts.slashReplies?.webhookFor(replyTo);
    if (!webhook) return false;
    this.opts.slashReplies?.finish(replyTo);
    await this.opts.rest.delete(Routes.webhookMessage(webhook.applicationId, webhook.token, "@original"), { auth: false });
    return true;
  }

  /** One message of at most 2000 characters; with a nonce, Discord creates it once however often it is sent. */
  sendChunk(to: OutboundTarget, content: string, replyTo: string | undefined, what = "message", buttons?: ButtonRow[], nonce?: string): Promise<SentMessage> {
    return this.post(to, what, { body: this.messageBody(content, replyTo, buttons, nonce) });
  }

  /** Replaces a message's text; a failure carries the Discord error code (discordCodeOf: 10008 = the message is gone). */
  async editText(to: OutboundTarget, messageId: string, content: string): Promise<void> {
    await this.onChannel(to, "edit", (channelId) => this.opts.rest.patch(Routes.channelMessage(channelId, messageId), { body: { content, allowed_mentions: ALLOWED_MENTIONS } }));
  }

  /** Adds (or, with `remove`, takes back) the bot's own reaction on a message. */
  async react(to: OutboundTarget, messageId: string, emoji: string, remove = false): Promise<void> {
    const route = Routes.channelMessageOwnReaction(to.threadId ?? to.chatId, messageId, encodeURIComponent(emoji));
    await this.onChannel(to, "reaction", () => (remove ? this.opts.rest.delete(route) : this.opts.rest.put(route)));
  }

  async deleteMessage(to: OutboundTarget, messageId: string): Promise<void> {
    await this.onChannel(to, "delete", (channelId) => this.opts.rest.delete(Routes.channelMessage(channelId, messageId)));
  }

  /** A caption longer than one message goes ahead of the file as text. */
  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const replyTo = opts.replyTo;
    const { size } = await stat(file.path);
    if (size > this.opts.maxUploadBytes) {
      throw new SendError(
        `${file.name} is ${mib(size)}; Discord accepts files up to ${mib(this.opts.maxUploadBytes)} here (channels.discord.maxUploadMB), so it was not sent`,
        { kind: "rejected" },
      );
    }
    const caption = file.caption ?? "";
    const voice = voiceMessageOf(file);
    // A voice message carries nothing else, so its caption goes ahead of it as text, like one too long to fit.
    const captionFits = !voice && splitMessage(caption).length <= 1;
    if (!captionFits && caption !== "") {
      const key = opts.idempotencyKey;
      await this.sendText(to, caption, { ...(replyTo !== undefined ? { replyTo } : {}), ...(key !== undefined ? { idempotencyKey: `${key}:caption` } : {}) });
    }
    const message = this.messageBody(captionFits ? caption : "", captionFits || voice ? replyTo : undefined, undefined, nonceOf(opts.idempotencyKey, "file"));
    const body = {
      ...message,
      ...(voice ? { flags: (message.flags ?? 0) | MessageFlags.IsVoiceMessage } : {}),
      attachments: [{ id: "0", filename: file.name, ...voice }],
    };
    const data = await readFile(file.path);
    return this.post(to, `file ${file.name}`, { body, files: [{ name: file.name, data, ...(file.mime ? { contentType: file.mime } : {}) }] });
  }

  async typing(to: OutboundTarget): Promise<void> {
    await this.onChannel(to, "typing indicator", (channelId) => this.opts.rest.post(Routes.channelTyping(channelId)));
  }

  private messageBody(content: string, replyTo: string | undefined, buttons?: ButtonRow[], nonce?: string): RESTPostAPIChannelMessageJSONBody {
    return {
      content,
      ...(nonce !== undefined ? { nonce, enforce_nonce: true } : {}),
      ...(buttons ? { components: componentsOf(buttons) } : {}),
      allowed_mentions: ALLOWED_MENTIONS,
      ...(this.opts.suppressEmbeds ? { flags: MessageFlags.SuppressEmbeds } : {}),
      ...(replyTo !== undefined ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {}),
    };
  }

  private async post(to: OutboundTarget, what: string, request: MessageRequest): Promise<SentMessage> {
    // With an enforced nonce, Discord deduplicates a repeat for a while from when this request went out.
    const repeatableUntil = request.body.enforce_nonce === true ? Date.now() + NONCE_WINDOW_MS : undefined;
    return this.sentOf(to, what, await this.onChannel(to, what, (channelId) => this.opts.rest.post(Routes.channelMessages(channelId), request), repeatableUntil));
  }

  /** A message sent through an interaction's webhook. */
  private async posted(to: OutboundTarget, what: string, request: Promise<unknown>): Promise<SentMessage> {
    const created = await request.catch((err: unknown) => Promise.reject(sendError(what, to.threadId ?? to.chatId, err)));
    return this.sentOf(to, what, created);
  }

  private sentOf(to: OutboundTarget, what: string, created: unknown): SentMessage {
    const parsed = createdMessageSchema.safeParse(created);
    if (!parsed.success) throw new Error(`Discord accepted ${what} for ${to.chatId} but answered without a message id`);
    const sentAt = parsed.data.timestamp ? new Date(parsed.data.timestamp) : new Date();
    return { messageId: parsed.data.id, sentAt: Number.isNaN(sentAt.getTime()) ? new Date() : sentAt };
  }

  /**
   * Runs `call` with the target's channel id. A chat id that is not a channel is tried as a user: a DM is opened.
   * `repeatableUntil`: until when Discord answers a repeat of the call with what it did (a message with an enforced nonce).
   */
  private async onChannel<T>(to: OutboundTarget, what: string, call: (channelId: string) => Promise<T>, repeatableUntil?: number): Promise<T> {
    const channelId = to.threadId ?? this.directChannels.get(to.chatId) ?? to.chatId;
    try {
      return await call(channelId);
    } catch (err) {
      const mayBeUser = to.threadId === undefined && channelId === to.chatId && isUnknownChannel(err);
      const direct = mayBeUser ? await this.openDirectChannel(to.chatId) : undefined;
      if (direct === undefined) throw sendError(what, channelId, err, repeatableUntil);
      return call(direct).catch((retryErr: unknown) => Promise.reject(sendError(what, direct, retryErr, repeatableUntil)));
    }
  }

  private async openDirectChannel(userId: string): Promise<string | undefined> {
    try {
      const channel = createdMessageSchema.pick({ id: true }).parse(await this.opts.rest.post(Routes.userChannels(), { body: { recipient_id: userId } }));
      this.directChannels.set(userId, channel.id);
      return channel.id;
    } catch {
      return undefined;
    }
  }
}

function isUnknownChannel(err: unknown): boolean {
  return err instanceof DiscordAPIError && err.code === RESTJSONErrorCodes.UnknownChannel;
}

/**
 * A SendError without the cause: discord.js errors carry the request body (message text, file bytes), which must
 * not reach logs. Only the JSON error code travels on (discordCodeOf).
 */
function sendError(what: string, channelId: string, err: unknown, repeatableUntil?: number): SendError {
  const detail =
    err instanceof DiscordAPIError || err instanceof HTTPError
      ? `HTTP ${err.status} ${err.message}`
      : err instanceof RateLimitError
        ? `rate limited for ${err.retryAfter} ms`
        : (err as Error).message;
  const failure = sendFailureOf(err);
  const repeat = failure.kind === "uncertain" && repeatableUntil !== undefined ? { repeatableUntil } : {};
  const error = new SendError(`Discord ${what} to channel ${channelId} failed: ${detail}`, failure, repeat);
  if (err instanceof DiscordAPIError) Object.assign(error, { discordCode: err.code });
  return error;
}

/** The Discord JSON error code of a failed call made through DiscordOutbound. */
export function discordCodeOf(err: unknown): number | string | undefined {
  return (err as { discordCode?: number | string } | null)?.discordCode;
}

export function sendFailureOf(err: unknown): SendFailure {
  if (err instanceof RateLimitError) return { kind: "rate_limited", retryAfterMs: err.retryAfter };
  if (err instanceof DiscordAPIError || err instanceof HTTPError) return httpFailure(err.status);
  return networkFailure(err);
}

/** Discord plays an Ogg/Opus attachment with its duration and waveform as a voice message; anything else is a file. */
function voiceMessageOf(file: OutboundFile): { duration_secs: number; waveform: string } | undefined {
  if (file.kind !== "voice" || file.durationSec === undefined || file.waveform === undefined || file.mime !== "audio/ogg") return undefined;
  return { duration_secs: file.durationSec, waveform: file.waveform };
}
