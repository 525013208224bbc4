/**
 * Everything the bot sends: text as HTML chunks (a chunk Telegram refuses to parse goes again as plain text),
 * files by the method that fits their kind, and the typing indicator. Replies go back into the forum topic the
 * message came from.
 */
import { stat } from "node:fs/promises";
import { extname } from "node:path";
import { InputFile, type Api } from "grammy";
import type { Message } from "grammy/types";
import type { Logger } from "../../infra/log.js";
import type { ButtonRow, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import { SendError } from "../../core/send-error.js";
import { describeTelegramError, isParseEntitiesError } from "./api.js";
import { telegramChunks, type TelegramChunk } from "./format.js";
import { inlineKeyboardOf } from "./presses.js";
import { telegramSendError } from "./retry.js";

export const TEXT_LIMIT = 4096;
export const CAPTION_LIMIT = 1024;
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;
const PHOTO_LIMIT_BYTES = 10 * 1024 * 1024;

/** Where a message goes: the chat's topic and the message it answers. */
interface Placement {
  message_thread_id?: number;
  reply_parameters?: { message_id: number; allow_sending_without_reply: true };
}

const NO_CAPTION: TelegramChunk = { html: "", plain: "" };

type UploadMethod = "sendPhoto" | "sendVoice" | "sendAudio" | "sendVideo" | "sendDocument";

export class TelegramSender {
  constructor(
    private readonly api: Api,
    private readonly log: Logger,
  ) {}

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.sendChunks(to, telegramChunks(text, TEXT_LIMIT), opts.replyTo, opts.fromPart ?? 0, opts.buttons);
  }

  /** Sends the chunks from `from` on; a failure carries the chunks that did arrive (SendError.sent). */
  private async sendChunks(to: OutboundTarget, chunks: TelegramChunk[], replyTo: string | undefined, from = 0, buttons?: ButtonRow[]): Promise<SentMessage[]> {
    const sent: SentMessage[] = [];
    for (const [index, chunk] of chunks.entries()) {
      if (index < from) continue;
      // Only the first chunk quotes the message it answers; the rest follow it. Buttons go under the last.
      const keyboard = buttons && index === chunks.length - 1 ? { reply_markup: inlineKeyboardOf(buttons) } : {};
      const placement = { ...placementOf(to, index === 0 ? replyTo : undefined), ...keyboard };
      try {
        const message = await this.withHtmlFallback(to, chunk, "sendMessage", (body) =>
          this.api.sendMessage(to.chatId, body.text, { ...placement, ...body.format }),
        );
        sent.push(sentOf(message));
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    return sent;
  }

  /** Uploads the file; a caption beyond 1024 characters goes on in text messages after it. */
  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const { size } = await stat(file.path).catch((err: unknown) => {
      throw new SendError(`Cannot send ${file.name}: ${(err as Error).message}`, { kind: "rejected" });
    });
    if (size > UPLOAD_LIMIT_BYTES) {
      throw new SendError(`Cannot send ${file.name}: it is ${size} bytes and Telegram bots may upload at most ${UPLOAD_LIMIT_BYTES}`, { kind: "rejected" });
    }
    const [caption, ...rest] = file.caption ? telegramChunks(file.caption, CAPTION_LIMIT) : [];
    const method = uploadMethodOf(file, size);
    const placement = placementOf(to, opts.replyTo);
    const duration = file.durationSec !== undefined ? { duration: Math.round(file.durationSec) } : {};
    const upload = (body: { text: string; format: { parse_mode?: "HTML" } }) => {
      const other = { ...placement, ...duration, ...(body.text ? { caption: body.text, ...body.format } : {}) };
      return this.upload(method, to.chatId, new InputFile(file.path, file.name), other);
    };
    const message = await this.withHtmlFallback(to, caption ?? NO_CAPTION, method, upload);
    if (rest.length > 0) {
      this.log.info({ chatId: to.chatId, file: file.name }, "caption longer than Telegram allows; the rest follows as text");
      await this.sendChunks(to, rest, undefined);
    }
    return sentOf(message);
  }

  async typing(to: OutboundTarget): Promise<void> {
    await this.api.sendChatAction(to.chatId, "typing", placementOf(to, undefined));
  }

  /** Sends the chunk as HTML; when Telegram cannot parse it, the same chunk again as plain text. */
  async withHtmlFallback<T>(
    to: OutboundTarget,
    chunk: TelegramChunk,
    method: string,
    send: (body: { text: string; format: { parse_mode?: "HTML" } }) => Promise<T>,
  ): Promise<T> {
    try {
      return await send({ text: chunk.html, format: { parse_mode: "HTML" } });
    } catch (err) {
      if (!isParseEntitiesError(err)) throw sendError(method, to, err);
      this.log.warn({ chatId: to.chatId, method, reason: describeTelegramError(err) }, "Telegram refused the HTML; sending plain text");
      return send({ text: chunk.plain, format: {} }).catch((retryErr: unknown) => {
        throw sendError(method, to, retryErr);
      });
    }
  }

  private upload(method: UploadMethod, chatId: string, input: InputFile, other: Placement & Record<string, unknown>): Promise<Message> {
    switch (method) {
      case "sendPhoto":
        return this.api.sendPhoto(chatId, input, other);
      case "sendVoice":
        return this.api.sendVoice(chatId, input, other);
      case "sendAudio":
        return this.api.sendAudio(chatId, input, other);
      case "sendVideo":
        return this.api.sendVideo(chatId, input, other);
      case "sendDocument":
        return this.api.sendDocument(chatId, input, other);
    }
  }
}

export function placementOf(to: OutboundTarget, replyTo: string | undefined): Placement {
  const thread = Number(to.threadId);
  const reply = Number(replyTo);
  return {
    ...(Number.isInteger(thread) && to.threadId !== undefined ? { message_thread_id: thread } : {}),
    ...(Number.isInteger(reply) && replyTo !== undefined ? { reply_parameters: { message_id: reply, allow_sending_without_reply: true } } : {}),
  };
}

/** A voice note must be OGG/Opus; other voice recordings go as audio. Photos over 10 MB go as documents. */
function uploadMethodOf(file: OutboundFile, size: number): UploadMethod {
  switch (file.kind) {
    case "image":
      return size <= PHOTO_LIMIT_BYTES ? "sendPhoto" : "sendDocument";
    case "voice":
      return isOggOpus(file) ? "sendVoice" : "sendAudio";
    case "audio":
      return "sendAudio";
    case "video":
      return "sendVideo";
    case "file":
      return "sendDocument";
  }
}

function isOggOpus(file: OutboundFile): boolean {
  if (file.mime !== undefined) return /^audio\/(ogg|opus)\b/i.test(file.mime);
  return [".ogg", ".oga", ".opus"].includes(extname(file.name).toLowerCase());
}

function sentOf(message: Message): SentMessage {
  return { messageId: String(message.message_id), sentAt: new Date(message.date * 1000) };
}

function sendError(method: string, to: OutboundTarget, err: unknown): SendError {
  return telegramSendError(`Telegram ${method} to chat ${to.chatId} failed: ${describeTelegramError(err)}`, err);
}
