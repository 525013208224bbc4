/**
 * Slack replies as they are written: a preview message edited in place with chat.update, one message per
 * 4,000-character part (cut as sendText cuts them), so a long reply goes on in a new message at the limit.
 */
import { SendError } from "../../core/send-error.js";
import type { OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { EditRefusal, PreviewTransport } from "../live-preview.js";
import { sendFailureOf, slackErrorOf } from "./api.js";
import { mrkdwnChunks } from "./format.js";
import type { SlackSender } from "./send.js";

/** chat.update's refusals for a message that can no longer be edited. */
const GONE = new Set(["message_not_found", "cant_update_message", "edit_window_closed", "channel_not_found"]);
/** A rate limit without a wait given: Slack's Tier 3 allows about one call a second. */
const DEFAULT_WAIT_MS = 1_000;

export class SlackPreview implements PreviewTransport<string> {
  constructor(
    private readonly sender: SlackSender,
    private readonly to: OutboundTarget,
    /** The message answered, for a reply sent whole (replyOptionsOf). */
    private readonly reply: SendTextOptions,
  ) {}

  render(markdown: string): string[] {
    return mrkdwnChunks(markdown);
  }

  keyOf(text: string): string {
    return text;
  }

  async send(text: string): Promise<string> {
    return (await this.sender.post(this.to, text)).messageId;
  }

  edit(ts: string, text: string): Promise<void> {
    return this.sender.update(this.to, ts, text);
  }

  delete(ts: string): Promise<void> {
    return this.sender.delete(this.to, ts);
  }

  refusal(err: unknown): EditRefusal {
    if (GONE.has(slackErrorOf(err) ?? "")) return { kind: "gone" };
    const failure = err instanceof SendError ? err.failure : sendFailureOf(err);
    return failure.kind === "rate_limited" ? { kind: "rate-limited", retryAfterMs: failure.retryAfterMs ?? DEFAULT_WAIT_MS } : undefined;
  }

  sendText(markdown: string): Promise<SentMessage[]> {
    return this.sender.sendText(this.to, markdown, this.reply);
  }
}
