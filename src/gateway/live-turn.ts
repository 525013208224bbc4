/**
 * Shows a turn's progress through the channel's live reply: the answer as it grows, with a status line below it
 * while a tool runs. Finishing sends the final text in place of the preview; cancelling takes the preview back.
 */
import { replyKeyOf, targetOf, type Channel, type InboundMessage, type LiveReply, type SentMessage } from "../core/types.js";
import type { TurnEvent } from "../core/turn.js";

export class LiveTurn {
  private text = "";
  private status: string | undefined;

  private constructor(private readonly live: LiveReply) {}

  /** undefined when the channel does not stream into this chat. */
  static open(channel: Channel, message: InboundMessage): LiveTurn | undefined {
    if ((channel.capabilities.streaming ?? "off") === "off") return undefined;
    const live = channel.liveReply?.(targetOf(message), { replyTo: message.platformMessageId, chatType: message.chat.type, idempotencyKey: replyKeyOf(message) });
    return live ? new LiveTurn(live) : undefined;
  }

  readonly onEvent = (event: TurnEvent): void => {
    if (event.type === "status") this.status = event.text;
    // New text means the tool finished and the model writes again.
    else if (event.text !== "") [this.text, this.status] = [event.text, undefined];
    else this.text = "";
    this.live.update(this.status === undefined ? this.text : [this.text, `_${this.status}_`].filter(Boolean).join("\n\n"));
  };

  finish(text: string): Promise<SentMessage[]> {
    return this.live.finish(text);
  }

  cancel(): Promise<void> {
    return this.live.cancel();
  }
}
