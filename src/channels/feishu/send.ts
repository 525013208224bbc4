/**
 * Replies and files on their way to Feishu. A Markdown reply is split into messages of at most
 * `maxMessageLength` characters; each goes in the preferred format and, when Feishu refuses that format, again
 * in the next simpler one, so a reply is never lost. Inside a thread every message is a reply "in thread".
 */
import { randomUUID } from "node:crypto";
import { partKey } from "../../core/ids.js";
import { SendError } from "../../core/send-error.js";
import type { Logger } from "../../infra/log.js";
import { chunkText, codePointLength } from "../../core/text.js";
import type { ButtonRow, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { FeishuApi, OutgoingMessage } from "./api.js";
import type { BotMessages } from "./bot-messages.js";
import { buttonCard } from "./card-actions.js";
import { disarmMentions, formatsFrom, render, type ReplyFormat } from "./format.js";
import { FeishuApiError } from "./http.js";
import { planUpload } from "./media.js";
import { feishuSendError, isRetryable } from "./retry.js";

export interface OutboundOptions {
  api: FeishuApi;
  botMessages: BotMessages;
  log: Logger;
  format: ReplyFormat;
  maxMessageLength: number;
  /** Told of each card sent with buttons (its message id and markdown). */
  onButtonCard?: (messageId: string, markdown: string) => void;
}

/** Where a message goes: a reply to `anchor` (in its thread when `inThread`), or a new message in the chat. */
type Placement = Pick<OutgoingMessage, "chatId" | "replyTo" | "inThread">;

/** One part of a reply as sent, with the format Feishu took it in. */
export interface SentPart extends SentMessage {
  format: ReplyFormat;
}

export class Outbound {
  constructor(private readonly opts: OutboundOptions) {}

  /** The parts sendText sends for this Markdown, in order. */
  parts(markdown: string): string[] {
    return chunkText(markdown, { maxLength: this.opts.maxMessageLength, measure: codePointLength });
  }

  /** Sends the parts from `opts.fromPart` on; a failure carries the parts that did arrive (SendError.sent). */
  async sendText(to: OutboundTarget, markdown: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const chunks = this.parts(markdown);
    const sent: SentMessage[] = [];
    for (const [index, chunk] of chunks.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      try {
        const key = opts.idempotencyKey;
        const placement = placementOf(to, opts.replyTo, index === 0);
        const buttons = index === chunks.length - 1 ? opts.buttons : undefined;
        const part = await (buttons
          ? this.sendWithButtons(placement, chunk, buttons, uuidBase(key, index), key !== undefined)
          : this.sendChunk(placement, chunk, uuidBase(key, index), key !== undefined));
        sent.push({ messageId: part.messageId, sentAt: part.sentAt });
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    return sent;
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const replyTo = opts.replyTo;
    const { api } = this.opts;
    const upload = await planUpload(file);
    // An upload shows nothing in the chat, so a failed one is safe to repeat.
    const content = await (upload.as === "image"
      ? api.uploadImage(file.path).then((key) => ({ image_key: key }))
      : api.uploadFile(file.path, upload.as, file.name, upload.durationMs).then((key) => ({ file_key: key }))
    ).catch((err: unknown) => {
      throw feishuSendError(`Feishu: uploading ${file.name} failed: ${(err as Error).message}`, err, "harmless");
    });
    const message = { msgType: upload.msgType, content: JSON.stringify(content), uuid: uuidBase(opts.idempotencyKey, "file") };
    const sent = await this.deliver({ ...placementOf(to, replyTo, true), ...message }, opts.idempotencyKey !== undefined);
    // Feishu's file and image messages have no caption; it follows as text.
    const key = opts.idempotencyKey;
    if (file.caption) await this.sendText(to, file.caption, key !== undefined ? { idempotencyKey: `${key}:caption` } : {});
    return sent;
  }

  /** Sends one part of a reply (`first`: the part that quotes `replyTo`), as sendText sends each of its parts. */
  sendPart(to: OutboundTarget, markdown: string, replyTo: string | undefined, first: boolean): Promise<SentPart> {
    return this.sendChunk(placementOf(to, replyTo, first), markdown, randomUUID(), false);
  }

  /** Sends the message that shows CardKit card entity `cardId`, in the place sendPart would put it. */
  sendCardEntity(to: OutboundTarget, cardId: string, replyTo: string | undefined, first: boolean): Promise<SentMessage> {
    const content = JSON.stringify({ type: "card", data: { card_id: cardId } });
    return this.deliver({ ...placementOf(to, replyTo, first), msgType: "interactive", content, uuid: randomUUID() }, false);
  }

  private async sendChunk(placement: Placement, markdown: string, uuid: string, idempotent: boolean): Promise<SentPart> {
    const formats = formatsFrom(this.opts.format);
    for (let index = 0; ; index += 1) {
      const format = formats[index]!;
      const { msgType, content } = render(markdown, format);
      try {
        // One idempotency key per format: a retry of the same request never sends twice, a fallback still sends.
        return { ...(await this.deliver({ ...placement, msgType, content, uuid: `${uuid}-${format}` }, idempotent)), format };
      } catch (err) {
        const refusal = refusalOf(err);
        const next = formats[index + 1];
        if (next === undefined || refusal === null) throw err;
        this.opts.log.warn(
          { chatId: placement.chatId, code: refusal.code, err: refusal.message },
          `Feishu refused the reply as ${format}; sending it as ${next}`,
        );
      }
    }
  }

  /** The part as a card with buttons; a card Feishu refuses goes as the reply format would, without them. */
  private async sendWithButtons(placement: Placement, markdown: string, buttons: ButtonRow[], uuid: string, idempotent: boolean): Promise<SentMessage> {
    const content = JSON.stringify(buttonCard(disarmMentions(markdown), buttons));
    try {
      const sent = await this.deliver({ ...placement, msgType: "interactive", content, uuid: `${uuid}-buttons` }, idempotent);
      this.opts.onButtonCard?.(sent.messageId, disarmMentions(markdown));
      return sent;
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal === null) throw err;
      this.opts.log.warn({ chatId: placement.chatId, code: refusal.code, err: refusal.message }, "Feishu refused the card with buttons; sending the text without them");
      return this.sendChunk(placement, markdown, uuid, idempotent);
    }
  }

  /** `idempotent`: the uuid stays the same for every attempt of this send, so Feishu posts it at most once. */
  private async deliver(message: OutgoingMessage, idempotent: boolean): Promise<SentMessage> {
    let messageId: string;
    const repeat = idempotent ? { sentAt: Date.now() } : "unsafe";
    try {
      messageId = await this.opts.api.send(message);
    } catch (err) {
      const what = `sending a ${message.msgType} message to chat ${message.chatId}`;
      throw feishuSendError(`Feishu: ${what} failed: ${(err as Error).message}`, err, repeat);
    }
    await this.opts.botMessages.remember(messageId);
    return { messageId, sentAt: new Date() };
  }
}

/**
 * Feishu's idempotency uuid (at most 50 characters) for one part: derived from the caller's key, so that every
 * attempt of the same send carries the same uuid; a fresh one when there is no key.
 */
function uuidBase(key: string | undefined, part: number | string): string {
  return key === undefined ? randomUUID() : partKey(key, part, 36);
}

function placementOf(to: OutboundTarget, replyTo: string | undefined, first: boolean): Placement {
  const inThread = to.threadId !== undefined;
  // Only the first message quotes the one it answers; in a thread all of them must reply to stay inside it.
  const anchor = first || inThread ? (replyTo ?? to.threadId) : undefined;
  return { chatId: to.chatId, ...(anchor !== undefined ? { replyTo: anchor, inThread } : {}) };
}

/** The error when Feishu answered and refused the content: a business code that no retry or new token fixes. */
function refusalOf(err: unknown): FeishuApiError | null {
  const cause = err instanceof Error && err.cause instanceof FeishuApiError ? err.cause : err;
  return cause instanceof FeishuApiError && cause.code !== null && !isRetryable(cause) ? cause : null;
}
