/**
 * The coordinator for one process (the SQLite backend): locks are in-process mutexes, and once-only markers
 * are persisted through the store so that deduplication still holds after a restart.
 */
import type { Coordinator, Namespace, Ticket } from "./types.js";
import { ForwardingLeases } from "./forwarding-leases.js";
import { LocalLeases } from "./local-leases.js";
import { KeyedMutex, waitFor } from "./keyed-mutex.js";
import { requireDuration, requireKey, resolveLockOptions, type LockOptions } from "./checks.js";

export class LocalCoordinator extends ForwardingLeases implements Coordinator {
  readonly #locks = new KeyedMutex();
  readonly #markerGuards = new KeyedMutex();
  readonly #lines = new KeyedMutex();
  /** One counter for every line: increasing within each line is all a fencing token needs. */
  #lastToken = 0;

  /** `markers`: where once-only markers live, with their TTL. */
  constructor(private readonly markers: Namespace<1>) {
    super(new LocalLeases());
  }

  async setIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    requireKey(key, "setIfAbsent");
    requireDuration(ttlMs, "ttlMs", `setIfAbsent "${key}"`);
    // Read-then-write is atomic here because every writer of this marker runs in this process, one at a time.
    return this.#markerGuards.run(key, async () => {
      if ((await this.markers.get(key)) !== undefined) return false;
      await this.markers.set(key, 1, ttlMs);
      return true;
    });
  }

  /** The lease is irrelevant in one process: a crash releases every lock with the process. */
  async withLock<T>(key: string, fn: () => Promise<T>, opts?: Partial<LockOptions>): Promise<T> {
    const { waitMs } = resolveLockOptions(key, opts);
    return this.#locks.run(key, fn, waitMs);
  }

  /** The place is taken now, so tickets run in the order they were taken; a crash ends every ticket with the process. */
  async takeTicket(line: string): Promise<Ticket> {
    requireKey(line, "takeTicket");
    const place = this.#lines.reserve(line);
    const token = ++this.#lastToken;
    return {
      token,
      run: async (fn, opts) => {
        try {
          await waitFor(place, line, opts?.waitMs);
          return await fn(token);
        } finally {
          place.release();
        }
      },
      release: async () => place.release(),
    };
  }

  /** In one process no ticket is ever lost (there is no lease to run out), so no newer token can have written. */
  async fence(resource: string): Promise<boolean> {
    requireKey(resource, "fence");
    return true;
  }

  /** Keys currently locked or awaited, for leak checks. */
  get activeLocks(): number {
    return this.#locks.activeKeys + this.#markerGuards.activeKeys + this.#lines.activeKeys;
  }
}
