/**
 * Counts events per subject within a window that opens at the subject's first event and lasts `windowMs`, in
 * the store, so that every replica sees the same counts. A burst is counted in one window, whenever it starts.
 * Kept over rate-limiter-flexible: its store-backed limiters need the raw Redis or SQLite client, which the Store
 * port hides. On Redis the store's shared counter counts for every replica in one atomic step; on SQLite the count
 * is a record read and written under the coordinator's (in-process) lock.
 */
import { z } from "zod";
import type { Namespace, Store } from "../infra/store/types.js";

const windowRecord = z.object({ start: z.number(), count: z.number().int().nonnegative() });
type WindowRecord = z.output<typeof windowRecord>;

export class WindowCounter {
  private readonly records: Namespace<unknown>;

  /** `name` keeps the keys of different counters apart, e.g. "rate-user". */
  constructor(
    private readonly store: Store,
    private readonly name: string,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.records = store.namespace<unknown>("access");
  }

  /** Counts one event for `subject`; returns how many its current window holds, this one included. */
  async hit(subject: string): Promise<number> {
    const key = this.keyOf(subject);
    const shared = this.store.coordinator.shared;
    if (shared) return shared.countInWindow(key, this.windowMs, this.now());
    return this.store.coordinator.withLock(key, async () => {
      const now = this.now();
      const current = await this.current(key, now);
      const next: WindowRecord = current ? { start: current.start, count: current.count + 1 } : { start: now, count: 1 };
      await this.records.set(key, next, Math.max(1, next.start + this.windowMs - now));
      return next.count;
    });
  }

  /** Events in the subject's current window; 0 when none is open. */
  async count(subject: string): Promise<number> {
    const shared = this.store.coordinator.shared;
    if (shared) return shared.windowCount(this.keyOf(subject), this.windowMs, this.now());
    return (await this.current(this.keyOf(subject), this.now()))?.count ?? 0;
  }

  private async current(key: string, now: number): Promise<WindowRecord | undefined> {
    const parsed = windowRecord.safeParse(await this.records.get(key));
    // A record that does not parse (an older format) counts as no window: the worst case is a fresh window.
    if (!parsed.success || now - parsed.data.start >= this.windowMs) return undefined;
    return parsed.data;
  }

  private keyOf(subject: string): string {
    return `${this.name}:${subject}`;
  }
}
