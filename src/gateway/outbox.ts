/**
 * Replies that failed their immediate attempts, kept in the store until they are sent or given up. Drained when
 * the gateway starts (so a restart loses nothing) and then on a timer, each entry with its own backoff. Every
 * attempt happens under the entry's lock after re-reading it, so two replicas never send the same entry twice.
 */
import { randomBytes } from "node:crypto";
import type { ButtonRow, OutboundTarget, SentMessage } from "../core/types.js";
import { asSendError, isRetryableSend, repeatable, repeatWindowAfter, type SendError } from "../core/send-error.js";
import type { Logger } from "../infra/log.js";
import { DurableList } from "../infra/store/durable-list.js";
import type { Store } from "../infra/store/types.js";

export interface OutboxEntry {
  id: string;
  to: OutboundTarget;
  text: string;
  replyTo?: string;
  /** Under the last part, as recorded by the gateway's actions (they expire on their own). */
  buttons?: ButtonRow[];
  /** Parts of the text that already arrived. */
  fromPart: number;
  /** Kept for every attempt, so that a platform with idempotent sends never posts it twice. */
  idempotencyKey: string;
  /**
   * Set while an attempt at the part still to go may have arrived on a platform that deduplicates a repeat only for
   * a while (SendError.repeatableUntil): after that a repeat could post it twice, so the entry is given up instead.
   */
  repeatableUntil?: number;
  firstFailedAt: number;
  attempts: number;
  nextAt: number;
  lastError: string;
  context?: Record<string, string>;
}

export interface OutboxTiming {
  retryForMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** One attempt at sending an entry's text from `fromPart` on; throws on failure. */
export type SendOnce = (entry: OutboxEntry) => Promise<SentMessage[]>;

export class Outbox {
  private readonly list: DurableList<OutboxEntry>;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | null = null;
  private running = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly timing: OutboxTiming,
    private readonly sendOnce: SendOnce,
    private readonly now: () => number = Date.now,
  ) {
    this.list = new DurableList(store, "outbox", (entry) => entry.id);
  }

  async add(fields: Omit<OutboxEntry, "id" | "attempts" | "nextAt" | "firstFailedAt">): Promise<OutboxEntry> {
    const now = this.now();
    const entry: OutboxEntry = { ...fields, id: randomBytes(8).toString("hex"), attempts: 0, firstFailedAt: now, nextAt: now + this.timing.baseDelayMs };
    await this.list.add(entry);
    this.schedule(this.timing.baseDelayMs);
    return entry;
  }

  pending(): Promise<OutboxEntry[]> {
    return this.list.all();
  }

  /** Tries everything a previous run left at once (its waits were for a process now gone), then drains on a timer. */
  async start(): Promise<void> {
    this.running = true;
    this.draining ??= this.pass(true).finally(() => (this.draining = null));
    await this.draining;
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.draining;
  }

  /** One pass over the due entries. */
  drain(): Promise<void> {
    this.draining ??= this.pass().finally(() => (this.draining = null));
    return this.draining;
  }

  private async pass(all = false): Promise<void> {
    for (const entry of await this.list.all()) {
      if (all || entry.nextAt <= this.now()) {
        await this.store.coordinator.withLock(`outbox:${entry.id}`, () => this.attempt(entry.id, all)).catch((err: unknown) => {
          this.log.warn({ err, outboxId: entry.id }, "outbox attempt could not run; trying again later");
        });
      }
    }
    const left = await this.list.all();
    if (left.length > 0) this.schedule(Math.max(0, Math.min(...left.map((e) => e.nextAt)) - this.now()));
  }

  private async attempt(id: string, evenIfNotDue: boolean): Promise<void> {
    // Re-read under the lock: another replica may have sent it meanwhile.
    const entry = (await this.list.all()).find((e) => e.id === id);
    if (!entry || (!evenIfNotDue && entry.nextAt > this.now())) return;
    if (!repeatable(entry.repeatableUntil, this.now())) {
      await this.giveUp(entry, entry.attempts, { kind: "uncertain", err: entry.lastError }, "reply may have arrived and the platform no longer deduplicates a repeat; given up");
      return;
    }
    try {
      await this.sendOnce(entry);
      await this.list.remove(id);
      this.log.info({ outboxId: id, chatId: entry.to.chatId, channel: entry.to.channel, attempts: entry.attempts + 1 }, "queued reply sent");
    } catch (err) {
      await this.failed(entry, asSendError(err, `sending a queued reply to ${entry.to.channel} chat ${entry.to.chatId}`));
    }
  }

  private async failed(entry: OutboxEntry, attemptErr: SendError): Promise<void> {
    const attempts = entry.attempts + 1;
    const fromPart = entry.fromPart + attemptErr.sent.length;
    const repeatableUntil = repeatWindowAfter(entry.repeatableUntil, attemptErr);
    const err = attemptErr.with({ repeatableUntil });
    if (!isRetryableSend(err, this.now()) || this.now() - entry.firstFailedAt >= this.timing.retryForMs) {
      await this.giveUp(entry, attempts, { kind: err.kind, err: err.message }, "reply could not be sent; given up");
      return;
    }
    const waitMs = Math.max(
      err.failure.kind === "rate_limited" ? (err.failure.retryAfterMs ?? 0) : 0,
      Math.min(this.timing.maxDelayMs, this.timing.baseDelayMs * 2 ** attempts),
    );
    const { repeatableUntil: _before, ...rest } = entry;
    await this.list.replace({ ...rest, attempts, fromPart, nextAt: this.now() + waitMs, lastError: err.message, ...(repeatableUntil !== undefined ? { repeatableUntil } : {}) });
  }

  private async giveUp(entry: OutboxEntry, attempts: number, failure: { kind: string; err: string }, why: string): Promise<void> {
    await this.list.remove(entry.id);
    this.log.error({ ...entry.context, outboxId: entry.id, channel: entry.to.channel, chatId: entry.to.chatId, attempts, ...failure }, why);
  }

  private schedule(inMs: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.drain(), inMs);
    this.timer.unref();
  }
}
