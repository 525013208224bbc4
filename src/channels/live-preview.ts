/**
 * A growing reply shown as messages edited in place (Telegram groups, Discord, Feishu without cards). The text is
 * cut into the platform's messages exactly as sendText cuts it, one preview message per part, so the final edit
 * leaves the same messages a plain reply would have sent. A refusal never loses text: a preview that cannot be
 * edited any more (deleted, too old) is replaced by a new message, and the stale one is taken back.
 */
import { pause, systemClock, type Clock } from "../core/clock.js";
import type { LiveReply, LiveReplyOptions, SendTextOptions, SentMessage, StreamingMode } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import { DEFAULT_THROTTLE, RateLimitedError, ThrottledLiveReply, type Presenter } from "./live-reply.js";

/**
 * What a preview's plain sends carry of the live reply's options: the message answered, and the reply's
 * idempotency key (a platform that deduplicates sends posts the reply once, however often the turn runs).
 */
export function replyOptionsOf(opts: LiveReplyOptions): SendTextOptions {
  return {
    ...(opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {}),
    ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}),
  };
}

/** How the platform refused an edit; undefined for any other failure. */
export type EditRefusal = { kind: "unchanged" } | { kind: "gone" } | { kind: "rate-limited"; retryAfterMs: number } | undefined;

/** One platform's messages, for a preview; B is one message's body as the platform's sendText renders it. */
export interface PreviewTransport<B> {
  /** The bodies sendText would send for this Markdown, in order. */
  render(markdown: string): B[];
  /** A string that is equal for bodies that look the same. */
  keyOf(body: B): string;
  /** Sends a new message; the first one answers the user's message. Answers its id. */
  send(body: B, first: boolean): Promise<string>;
  edit(id: string, body: B): Promise<void>;
  delete(id: string): Promise<void>;
  /** Classifies an error thrown by edit. */
  refusal(err: unknown): EditRefusal;
  /** The plain reply, for a turn that ended before any preview was shown. */
  sendText(markdown: string): Promise<SentMessage[]>;
}

/** Longest wait for a rate limit before the final text goes out as new messages instead. */
const MAX_FINAL_WAIT_MS = 30_000;

interface Shown {
  id: string;
  key: string;
}

export class EditPreview<B> implements Presenter {
  private messages: Shown[] = [];
  private lastEditEnd = Number.NEGATIVE_INFINITY;

  private readonly editIntervalMs: number;
  private readonly clock: Clock;

  /** `editIntervalMs`: least time between two edits, also when one update or the final text changes several parts. */
  constructor(
    private readonly transport: PreviewTransport<B>,
    private readonly log: Logger,
    pace: { editIntervalMs?: number; clock?: Clock } = {},
  ) {
    this.editIntervalMs = pace.editIntervalMs ?? 1_000;
    this.clock = pace.clock ?? systemClock;
  }

  async show(text: string): Promise<void> {
    const bodies = this.transport.render(text);
    if (bodies.length === 0) return;
    for (const [index, body] of bodies.entries()) await this.place(index, body, false);
    await this.dropFrom(bodies.length);
  }

  async finish(text: string): Promise<SentMessage[]> {
    if (this.messages.length === 0) return this.transport.sendText(text);
    const bodies = this.transport.render(text);
    // Parts the final text does not have go first, so the chat never shows the end of a reply that is not there.
    await this.dropFrom(bodies.length);
    const sent: SentMessage[] = [];
    for (const [index, body] of bodies.entries()) {
      await this.place(index, body, true);
      sent.push({ messageId: this.messages[index]!.id, sentAt: new Date() });
    }
    return sent;
  }

  async cancel(): Promise<void> {
    await this.dropFrom(0);
  }

  /** Makes message `index` show `body`: sent when new, edited when changed. */
  private async place(index: number, body: B, final: boolean): Promise<void> {
    const key = this.transport.keyOf(body);
    const current = this.messages[index];
    if (!current) {
      this.messages[index] = { id: await this.transport.send(body, index === 0), key };
      return;
    }
    if (current.key === key) return;
    const refusal = await this.tryEdit(current.id, body);
    if (refusal === null || refusal?.kind === "unchanged") {
      current.key = key;
      return;
    }
    if (!final && refusal === undefined) throw new Error(`editing preview message ${current.id} failed`);
    if (refusal?.kind === "rate-limited") {
      if (!final) throw new RateLimitedError(refusal.retryAfterMs);
      if (refusal.retryAfterMs <= MAX_FINAL_WAIT_MS) {
        await pause(this.clock, refusal.retryAfterMs);
        if ((await this.tryEdit(current.id, body)) === null) {
          current.key = key;
          return;
        }
      }
    }
    // The preview cannot show it: the text goes out as a new message, and the stale preview is taken back.
    this.log.info({ messageId: current.id, refusal: refusal?.kind ?? "error" }, "could not edit the preview; sending the part anew");
    this.messages[index] = { id: await this.transport.send(body, index === 0), key };
    if (refusal?.kind !== "gone") await this.remove(current.id);
  }

  /** null when the edit went through; the refusal (undefined: another error) otherwise. */
  private async tryEdit(id: string, body: B): Promise<EditRefusal | null> {
    await pause(this.clock, this.lastEditEnd + this.editIntervalMs - this.clock.now());
    try {
      await this.transport.edit(id, body);
      return null;
    } catch (err) {
      const refusal = this.transport.refusal(err);
      if (!refusal) this.log.warn({ err, messageId: id }, "editing the preview failed");
      return refusal;
    } finally {
      this.lastEditEnd = this.clock.now();
    }
  }

  private async dropFrom(count: number): Promise<void> {
    const extra = this.messages.splice(count);
    for (const message of extra) await this.remove(message.id);
  }

  private async remove(id: string): Promise<void> {
    await this.transport.delete(id).catch((err: unknown) => this.log.warn({ err, messageId: id }, "could not delete a preview message"));
  }
}

/** A channel's live reply as messages edited in place, at the kit's pace; undefined when its streaming is off. */
export function editedLiveReply<B>(
  streaming: StreamingMode | undefined,
  transport: () => PreviewTransport<B>,
  log: Logger,
  clock: Clock = systemClock,
): LiveReply | undefined {
  if (streaming === undefined || streaming === "off") return undefined;
  return new ThrottledLiveReply(new EditPreview(transport(), log, { clock }), log, DEFAULT_THROTTLE, clock);
}
