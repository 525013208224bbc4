/**
 * A WebChat reply as it is written: the chat's open tabs get the text in deltas (`draft` frames), then a
 * `draft_end` and the final reply as an ordinary message. The HTTP API and the transcript get only the final reply.
 */
import { randomUUID } from "node:crypto";
import type { LiveReply, SentMessage } from "../../core/types.js";
import type { ChatRelay } from "./relay.js";

export class WebLiveReply implements LiveReply {
  private readonly draftId = randomUUID();
  private sent = "";

  constructor(
    private readonly frames: ChatRelay,
    private readonly chatId: string,
    private readonly sendFinal: (text: string) => Promise<SentMessage[]>,
  ) {}

  update(text: string): void {
    if (text === this.sent) return;
    const grown = text.startsWith(this.sent);
    const frame = grown ? { delta: text.slice(this.sent.length) } : { text };
    this.sent = text;
    this.frames.broadcast(this.chatId, { type: "draft", draftId: this.draftId, ...frame });
  }

  async finish(text: string): Promise<SentMessage[]> {
    this.end();
    return this.sendFinal(text);
  }

  async cancel(): Promise<void> {
    this.end();
  }

  private end(): void {
    if (this.sent !== "") this.frames.broadcast(this.chatId, { type: "draft_end", draftId: this.draftId });
  }
}
