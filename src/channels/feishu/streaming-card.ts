/**
 * Feishu replies as they are written. With CardKit, each part of the reply is a streaming card: a card entity with
 * streaming_mode on, sent once as a message, whose markdown element gets the full text so far with a growing
 * sequence number (Feishu animates the new characters); at the end streaming mode is turned off. Where CardKit is
 * refused (no cardkit:card:write scope, a card it cannot build) or not wanted, a part is a plain reply message
 * edited in place (PATCH for cards, PUT for posts and text). The parts are cut as sendText cuts them, so the
 * finished reply is the very messages a plain reply sends.
 */
import type { Clock } from "../../core/clock.js";
import type { LiveReplyOptions, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import { EditPreview, replyOptionsOf, type EditRefusal, type PreviewTransport } from "../live-preview.js";
import type { Presenter } from "../live-reply.js";
import type { FeishuApi } from "./api.js";
import { cardJson, disarmMentions, render, type ReplyFormat } from "./format.js";
import { FeishuApiError } from "./http.js";
import type { Outbound } from "./send.js";
import { isRetryable } from "./retry.js";

/** The element of a streaming card that holds the text. */
const ELEMENT_ID = "answer";
/** "request trigger frequency limit" and the per-message update limit. */
const RATE_LIMIT_CODES = new Set([99991400, 230020]);
/** The message was recalled or deleted. */
const GONE_CODES = new Set([230011]);
/** Streaming mode was closed (300309), or closed itself after its 10 minutes (200850): it can be turned on again. */
const STREAMING_CLOSED_CODES = new Set([300309, 200850]);

export interface FeishuLiveDeps {
  api: FeishuApi;
  outbound: Outbound;
  log: Logger;
  /** Parts as CardKit streaming cards; false: reply messages edited in place. */
  cards: boolean;
  clock: Clock;
}

/** The presenter of one streamed reply into `to`. */
export function feishuPresenter(deps: FeishuLiveDeps, to: OutboundTarget, opts: LiveReplyOptions): Presenter {
  const transport = new FeishuPreview(deps, to, replyOptionsOf(opts));
  return new StreamingCards(new EditPreview(transport, deps.log, { clock: deps.clock }), transport);
}

/** A part of the reply on screen: a streaming card, or a message of the reply's format. */
type Part = { kind: "card"; cardId: string; sequence: number; streaming: boolean } | { kind: "message"; format: ReplyFormat };

class FeishuPreview implements PreviewTransport<string> {
  private readonly parts = new Map<string, Part>();
  private cardsRefused = false;

  constructor(
    private readonly deps: FeishuLiveDeps,
    private readonly to: OutboundTarget,
    /** The message answered, and the reply's idempotency key for a reply sent whole (replyOptionsOf). */
    private readonly reply: SendTextOptions,
  ) {}

  render(markdown: string): string[] {
    return this.deps.outbound.parts(markdown);
  }

  keyOf(part: string): string {
    return part;
  }

  async send(markdown: string, first: boolean): Promise<string> {
    const cardId = this.deps.cards && !this.cardsRefused ? await this.createCard(markdown) : undefined;
    if (cardId !== undefined) {
      const messageId = await this.sendCard(cardId, first);
      if (messageId !== undefined) return messageId;
    }
    const sent = await this.deps.outbound.sendPart(this.to, markdown, this.reply.replyTo, first);
    this.parts.set(sent.messageId, { kind: "message", format: sent.format });
    return sent.messageId;
  }

  async edit(id: string, markdown: string): Promise<void> {
    const part = this.parts.get(id);
    if (!part) throw new Error(`Feishu preview message ${id} is unknown`);
    if (part.kind === "message") {
      const { msgType, content } = render(markdown, part.format);
      await this.deps.api.editMessage(id, msgType, content);
      return;
    }
    try {
      await this.deps.api.streamCardText(part.cardId, ELEMENT_ID, disarmMentions(markdown), ++part.sequence);
    } catch (err) {
      if (!(err instanceof FeishuApiError && err.code !== null && STREAMING_CLOSED_CODES.has(err.code))) throw err;
      // A long tool run outlasted the card's streaming window: open it again and show the text.
      await this.deps.api.cardSettings(part.cardId, { streaming_mode: true }, ++part.sequence);
      await this.deps.api.streamCardText(part.cardId, ELEMENT_ID, disarmMentions(markdown), ++part.sequence);
    }
  }

  async delete(id: string): Promise<void> {
    this.parts.delete(id);
    await this.deps.api.deleteMessage(id);
  }

  refusal(err: unknown): EditRefusal {
    if (!(err instanceof FeishuApiError)) return undefined;
    if (err.httpStatus === 429 || (err.code !== null && RATE_LIMIT_CODES.has(err.code))) {
      return { kind: "rate-limited", retryAfterMs: err.retryAfterMs ?? 1_000 };
    }
    return err.code !== null && GONE_CODES.has(err.code) ? { kind: "gone" } : undefined;
  }

  sendText(markdown: string): Promise<SentMessage[]> {
    return this.deps.outbound.sendText(this.to, markdown, this.reply);
  }

  /** Turns streaming off on every card still streaming, so Feishu shows them as finished. */
  async closeStreaming(): Promise<void> {
    for (const part of this.parts.values()) {
      if (part.kind !== "card" || !part.streaming) continue;
      part.streaming = false;
      await this.deps.api
        .cardSettings(part.cardId, { streaming_mode: false }, ++part.sequence)
        .catch((err: unknown) => this.deps.log.warn({ err, cardId: part.cardId }, "could not turn off a card's streaming mode"));
    }
  }

  /** The message showing the card; undefined when Feishu refused it (then the part goes as a plain message). */
  private async sendCard(cardId: string, first: boolean): Promise<string | undefined> {
    try {
      const sent = await this.deps.outbound.sendCardEntity(this.to, cardId, this.reply.replyTo, first);
      this.parts.set(sent.messageId, { kind: "card", cardId, sequence: 0, streaming: true });
      return sent.messageId;
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof FeishuApiError ? err.cause : err;
      if (!(cause instanceof FeishuApiError && cause.code !== null && !isRetryable(cause))) throw err;
      this.cardsRefused = true;
      this.deps.log.info({ chatId: this.to.chatId, reason: cause.message }, "Feishu refused the streaming card's message; previewing by message edits");
      return undefined;
    }
  }

  /** A card entity for this part; undefined when CardKit refuses (then plain messages serve the rest). */
  private async createCard(markdown: string): Promise<string | undefined> {
    try {
      return await this.deps.api.createCard(cardJson(markdown, { elementId: ELEMENT_ID }));
    } catch (err) {
      // An entity that was never sent shows nothing, so a plain message in its place loses and doubles nothing.
      // Only a refusal ends CardKit for this reply; after a rate limit or an outage the next part tries again.
      const refused = err instanceof FeishuApiError && err.code !== null && !isRetryable(err);
      if (refused) this.cardsRefused = true;
      this.deps.log.info({ chatId: this.to.chatId, reason: (err as Error).message }, "no streaming card for this part; sending it as a message");
      return undefined;
    }
  }
}

/** The edited preview, with each card's streaming mode turned off once the reply is final. */
class StreamingCards implements Presenter {
  constructor(
    private readonly preview: EditPreview<string>,
    private readonly transport: FeishuPreview,
  ) {}

  show(text: string): Promise<void> {
    return this.preview.show(text);
  }

  async finish(text: string): Promise<SentMessage[]> {
    const sent = await this.preview.finish(text);
    await this.transport.closeStreaming();
    return sent;
  }

  cancel(): Promise<void> {
    return this.preview.cancel();
  }
}
