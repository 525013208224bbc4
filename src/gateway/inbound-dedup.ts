/**
 * Which inbound messages are being handled or have been, so a platform's redelivery is dropped while a message
 * whose handling died with its process is handled again. A message is "handling" (claimed by one router
 * instance) until its outcome is known, then "done" for the dedup TTL. A "handling" record left by an instance
 * that is gone is taken over: on SQLite (one process owns the file) any other instance is gone; on Redis, where
 * other replicas may be alive, only once its lease has run out. On SQLite the "handling" state is therefore only
 * ever this instance's, and is kept in memory: a message costs one read and one write ("done") instead of three
 * store round trips.
 */
import { randomUUID } from "node:crypto";
import type { Namespace, Store } from "../infra/store/types.js";

type DedupRecord = { state: "handling"; owner: string; leaseUntil: number } | { state: "done" };

export interface InboundDedupOptions {
  /** How long a handled message id is remembered. */
  ttlMs: number;
  /** How long another replica's claim is honoured (Redis); longer than a turn normally takes. */
  leaseMs: number;
  now?: () => number;
}

export class InboundDedup {
  private readonly owner = randomUUID();
  private readonly records: Namespace<DedupRecord>;
  private readonly now: () => number;
  /** SQLite: the messages this instance is handling (their "handling" record, which no other instance honours). */
  private readonly handling = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly opts: InboundDedupOptions,
  ) {
    this.records = store.namespace<DedupRecord>("dedup");
    this.now = opts.now ?? Date.now;
  }

  /** True when this instance now owns the message; false for a redelivery of one handled or being handled. */
  claim(messageId: string): Promise<boolean> {
    return this.store.coordinator.withLock(`dedup:${messageId}`, async () => {
      if (this.handling.has(messageId)) return false;
      const record = await this.records.get(messageId);
      if (record && !this.isStale(record)) return false;
      if (this.store.backend === "sqlite") {
        this.handling.add(messageId);
        return true;
      }
      const claim: DedupRecord = { state: "handling", owner: this.owner, leaseUntil: this.now() + this.opts.leaseMs };
      await this.records.set(messageId, claim, this.opts.ttlMs);
      return true;
    });
  }

  /** Records that the message has an outcome (answered, ignored, refused, failed...): never handle it again. */
  async finish(messageId: string): Promise<void> {
    await this.records.set(messageId, { state: "done" }, this.opts.ttlMs);
    // After a failed write the message stays claimed here, as its "handling" record would on Redis.
    this.handling.delete(messageId);
  }

  private isStale(record: DedupRecord): boolean {
    if (record.state === "done" || record.owner === this.owner) return false;
    return this.store.backend === "sqlite" || record.leaseUntil < this.now();
  }
}
