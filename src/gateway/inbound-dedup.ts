/**
 * Which inbound messages are being handled or have been, so a platform's redelivery is dropped while a message
 * whose handling died with its process is handled again. A message is "handling" (claimed by one router
 * instance) until its outcome is known, then "done" for the dedup TTL. A "handling" record left by an instance
 * that is gone is taken over: on SQLite (one process owns the file) any other instance is gone; on Redis, where
 * other replicas may be alive, only once its lease has run out. The owner renews its claims every third of the
 * lease while it handles them, so the lease can be short: it only says how soon a dead owner's message is taken
 * over. Until then a claim waits: the other replica's outcome ends the wait as a duplicate, its lease running out
 * (it died mid-turn, e.g. killed after it took the message from the platform) hands the message to this one, so a
 * takeover loses nothing. On SQLite the "handling" state is only ever this instance's, so it is kept in memory: a
 * message costs one read and one write ("done") instead of three store round trips.
 *
 * Telegram has no idempotency key, so a message handled again after a crash is answered again. The only defence is
 * to keep the time between the answer going out and the record that it did tiny: `answered` writes "done", with the
 * message's inbox entry removed, in one store write (never batched), as soon as the send returns.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { InboundMessage } from "../core/types.js";
import { DURABLE_LISTS } from "../infra/store/durable-list.js";
import { KeyedMutex } from "../infra/store/keyed-mutex.js";
import type { Namespace, Store } from "../infra/store/types.js";

type DedupRecord = { state: "handling"; owner: string; leaseUntil: number } | { state: "done" };

export interface InboundDedupOptions {
  /** How long a handled message id is remembered. */
  ttlMs: number;
  /** How long another replica's claim is honoured (Redis); longer than a turn normally takes. */
  leaseMs: number;
  now?: () => number;
  /** While true, a claim held by another live replica is waited for; false (shutting down) gives up waiting. */
  keepWaiting?: () => boolean;
}

/** A claim's result: this instance handles it, it was handled (or is being handled here), or it waits for a restart. */
export type ClaimResult = "claimed" | "handled" | "deferred";

/** How often a claim held by another replica is looked at again. */
const RECHECK_MS = 1_000;

export class InboundDedup {
  private readonly owner = randomUUID();
  private readonly records: Namespace<DedupRecord>;
  private readonly now: () => number;
  /** Messages this instance is handling, whose claims it renews. */
  private readonly held = new Set<string>();
  private renewal: NodeJS.Timeout | undefined;
  private renewing = false;
  /** SQLite: the messages this instance is handling (their "handling" record, which no other instance honours). */
  private readonly handling = new Set<string>();
  /** Messages recorded by `answered`, whose `finish` has nothing left to write. */
  private readonly answeredHere = new Set<string>();
  /**
   * This instance's own writes of a record, one at a time: a renewal read before `answered` wrote "done" must not
   * write "handling" over it. The store lock would cost `answered` two more round trips.
   */
  private readonly ownWrites = new KeyedMutex();

  constructor(
    private readonly store: Store,
    private readonly opts: InboundDedupOptions,
  ) {
    this.records = store.namespace<DedupRecord>("dedup");
    this.now = opts.now ?? Date.now;
  }

  /** "claimed" when this instance now owns the message; "handled" for a redelivery of one handled or being handled here. */
  async claim(messageId: string): Promise<ClaimResult> {
    for (;;) {
      const attempt = await this.tryClaim(messageId);
      if (attempt === "claimed") this.hold(messageId);
      if (attempt !== "elsewhere") return attempt;
      if (!(this.opts.keepWaiting?.() ?? true)) return "deferred";
      await delay(RECHECK_MS);
    }
  }

  private tryClaim(messageId: string): Promise<"claimed" | "handled" | "elsewhere"> {
    return this.store.coordinator.withLock(`dedup:${messageId}`, async () => {
      if (this.handling.has(messageId)) return "handled";
      const record = await this.records.get(messageId);
      if (record && !this.isStale(record)) {
        return record.state === "handling" && record.owner !== this.owner ? "elsewhere" : "handled";
      }
      if (this.store.backend === "sqlite") {
        this.handling.add(messageId);
        return "claimed";
      }
      const claim: DedupRecord = { state: "handling", owner: this.owner, leaseUntil: this.now() + this.opts.leaseMs };
      await this.records.set(messageId, claim, this.opts.ttlMs);
      return "claimed";
    });
  }

  /** Gives up this instance's claim (the message was deferred at shutdown), so another replica may claim it now. */
  release(messageId: string): Promise<void> {
    this.held.delete(messageId);
    if (this.handling.delete(messageId)) return Promise.resolve();
    return this.store.coordinator.withLock(`dedup:${messageId}`, async () => {
      const record = await this.records.get(messageId);
      if (record?.state === "handling" && record.owner === this.owner) await this.records.delete(messageId);
    });
  }

  /**
   * Records at once, in one store write, that the message was answered (never handle it again) and takes it out of
   * its channel's inbox: called as soon as the answer's send returns.
   */
  async answered(message: InboundMessage): Promise<void> {
    const messageId = message.id;
    this.held.delete(messageId);
    const { inbox } = message;
    await this.ownWrites.run(messageId, () =>
      this.store.write({
        set: [{ namespace: "dedup", key: messageId, value: { state: "done" } satisfies DedupRecord, ttlMs: this.opts.ttlMs }],
        ...(inbox ? { remove: [{ namespace: DURABLE_LISTS, key: inbox.list, id: inbox.id }] } : {}),
      }),
    );
    if (inbox) inbox.removed = true;
    this.handling.delete(messageId);
    this.answeredHere.add(messageId);
  }

  /** Records that the message has an outcome (answered, ignored, refused, failed...): never handle it again. */
  async finish(messageId: string): Promise<void> {
    this.held.delete(messageId);
    if (this.answeredHere.delete(messageId)) return;
    if (this.handling.has(messageId)) {
      await this.records.set(messageId, { state: "done" }, this.opts.ttlMs);
      // After a failed write the message stays claimed here, as its "handling" record would on Redis.
      this.handling.delete(messageId);
      return;
    }
    // Under the lock, so a renewal in flight cannot write "handling" over "done".
    await this.store.coordinator.withLock(`dedup:${messageId}`, () => this.records.set(messageId, { state: "done" }, this.opts.ttlMs));
  }

  private hold(messageId: string): void {
    this.held.add(messageId);
    if (this.renewal || this.store.backend !== "redis") return;
    this.renewal = setInterval(() => void this.renewAll(), Math.max(1, Math.floor(this.opts.leaseMs / 3)));
    this.renewal.unref();
  }

  /** Extends each held claim that is still this instance's; one that cannot be renewed runs out, as if it died. */
  private async renewAll(): Promise<void> {
    if (this.held.size === 0) {
      clearInterval(this.renewal);
      this.renewal = undefined;
      return;
    }
    if (this.renewing) return;
    this.renewing = true;
    for (const messageId of [...this.held]) {
      await this.ownWrites
        .run(messageId, () =>
          this.store.coordinator.withLock(`dedup:${messageId}`, async () => {
            const record = await this.records.get(messageId);
            if (!this.held.has(messageId) || record?.state !== "handling" || record.owner !== this.owner) return;
            await this.records.set(messageId, { ...record, leaseUntil: this.now() + this.opts.leaseMs }, this.opts.ttlMs);
          }),
        )
        .catch(() => undefined);
    }
    this.renewing = false;
  }

  private isStale(record: DedupRecord): boolean {
    if (record.state === "done" || record.owner === this.owner) return false;
    return this.store.backend === "sqlite" || record.leaseUntil < this.now();
  }
}
