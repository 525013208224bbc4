/**
 * Replies and files on their way to Feishu. A Markdown reply is split into messages of at most
 * `maxMessageLength` characters; each goes in the preferred format and, when Feishu refuses that format, again
 * in the next simpler one, so a reply is never lost. Inside a thread every message is a reply "in thread".
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../../infra/log.js";
import { chunkText, codePointLength } from "../../core/text.js";
import type { OutboundFile, OutboundTarget, SentMessage } from "../../core/types.js";
import type { FeishuApi, OutgoingMessage } from "./api.js";
import type { BotMessages } from "./bot-messages.js";
import { formatsFrom, render, type ReplyFormat } from "./format.js";
import { FeishuApiError } from "./http.js";
import { planUpload } from "./media.js";
import { isRetryable } from "./retry.js";

export interface OutboundOptions {
  api: FeishuApi;
  botMessages: BotMessages;
  log: Logger;
  format: ReplyFormat;
  maxMessageLength: number;
}

/** Where a message goes: a reply to `anchor` (in its thread when `inThread`), or a new message in the chat. */
type Placement = Pick<OutgoingMessage, "chatId" | "replyTo" | "inThread">;

export class Outbound {
  constructor(private readonly opts: OutboundOptions) {}

  async sendText(to: OutboundTarget, markdown: string, replyTo?: string): Promise<SentMessage[]> {
    const chunks = chunkText(markdown, { maxLength: this.opts.maxMessageLength, measure: codePointLength });
    const sent: SentMessage[] = [];
    for (const [index, chunk] of chunks.entries()) {
      sent.push(await this.sendChunk(placementOf(to, replyTo, index === 0), chunk));
    }
    return sent;
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, replyTo?: string): Promise<SentMessage> {
    const { api } = this.opts;
    const upload = await planUpload(file);
    const content =
      upload.as === "image"
        ? { image_key: await api.uploadImage(file.path) }
        : { file_key: await api.uploadFile(file.path, upload.as, file.name, upload.durationMs) };
    const message = { msgType: upload.msgType, content: JSON.stringify(content), uuid: randomUUID() };
    const sent = await this.deliver({ ...placementOf(to, replyTo, true), ...message });
    // Feishu's file and image messages have no caption; it follows as text.
    if (file.caption) await this.sendText(to, file.caption);
    return sent;
  }

  private async sendChunk(placement: Placement, markdown: string): Promise<SentMessage> {
    const formats = formatsFrom(this.opts.format);
    const uuid = randomUUID();
    for (let index = 0; ; index += 1) {
      const format = formats[index]!;
      const { msgType, content } = render(markdown, format);
      try {
        // One idempotency key per format: a retry of the same request never sends twice, a fallback still sends.
        return await this.deliver({ ...placement, msgType, content, uuid: `${uuid}-${format}` });
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

  private async deliver(message: OutgoingMessage): Promise<SentMessage> {
    let messageId: string;
    try {
      messageId = await this.opts.api.send(message);
    } catch (err) {
      const what = `sending a ${message.msgType} message to chat ${message.chatId}`;
      throw new Error(`Feishu: ${what} failed: ${(err as Error).message}`, { cause: err });
    }
    await this.opts.botMessages.remember(messageId);
    return { messageId, sentAt: new Date() };
  }
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
