/**
 * Discord replies as they are written: a preview message edited in place, one message per 2000-character part
 * (cut as sendText cuts them). @discordjs/rest queues the calls within Discord's rate limits and waits out a 429
 * itself; the preview's own pace (one edit a second) keeps well inside the five edits per five seconds allowed.
 */
import { RESTJSONErrorCodes } from "discord.js";
import type { OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { EditRefusal, PreviewTransport } from "../live-preview.js";
import { discordCodeOf, splitMessage, type DiscordOutbound } from "./send.js";

export class DiscordPreview implements PreviewTransport<string> {
  constructor(
    private readonly outbound: DiscordOutbound,
    private readonly to: OutboundTarget,
    /** The message answered, and the reply's idempotency key for a reply sent whole (replyOptionsOf). */
    private readonly reply: SendTextOptions,
  ) {}

  render(markdown: string): string[] {
    return splitMessage(markdown);
  }

  keyOf(content: string): string {
    return content;
  }

  async send(content: string, first: boolean): Promise<string> {
    return (await this.outbound.sendChunk(this.to, content, first ? this.reply.replyTo : undefined)).messageId;
  }

  edit(id: string, content: string): Promise<void> {
    return this.outbound.editText(this.to, id, content);
  }

  delete(id: string): Promise<void> {
    return this.outbound.deleteMessage(this.to, id);
  }

  refusal(err: unknown): EditRefusal {
    return discordCodeOf(err) === RESTJSONErrorCodes.UnknownMessage ? { kind: "gone" } : undefined;
  }

  sendText(markdown: string): Promise<SentMessage[]> {
    return this.outbound.sendText(this.to, markdown, this.reply);
  }
}
