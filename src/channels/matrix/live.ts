/**
 * Matrix replies as they are written: a preview message replaced in place by edits (m.replace), one message per
 * part as sendText cuts them. A preview that is taken back is redacted. Rate limits (M_LIMIT_EXCEEDED) make the
 * preview wait `retry_after_ms`.
 */
import type { OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { EditRefusal, PreviewTransport } from "../live-preview.js";
import { MatrixError } from "./api.js";
import { textParts, type MatrixSender } from "./send.js";

export class MatrixPreview implements PreviewTransport<string> {
  constructor(
    private readonly sender: MatrixSender,
    private readonly to: OutboundTarget,
    /** The message answered, and the reply's idempotency key for a reply sent whole (replyOptionsOf). */
    private readonly reply: SendTextOptions,
  ) {}

  render(markdown: string): string[] {
    return textParts(markdown);
  }

  keyOf(part: string): string {
    return part;
  }

  async send(part: string, first: boolean): Promise<string> {
    return (await this.sender.sendPart(this.to, part, this.reply.replyTo, first)).messageId;
  }

  edit(id: string, part: string): Promise<void> {
    return this.sender.edit(this.to.chatId, id, part);
  }

  delete(id: string): Promise<void> {
    return this.sender.redact(this.to.chatId, id);
  }

  refusal(err: unknown): EditRefusal {
    if (!(err instanceof MatrixError)) return undefined;
    if (err.errcode === "M_LIMIT_EXCEEDED") return { kind: "rate-limited", retryAfterMs: err.retryAfterMs ?? 1_000 };
    return err.errcode === "M_NOT_FOUND" ? { kind: "gone" } : undefined;
  }

  sendText(markdown: string): Promise<SentMessage[]> {
    return this.sender.sendText(this.to, markdown, this.reply);
  }
}
