/**
 * The coordinator for one process (the SQLite backend): locks are in-process mutexes, and once-only markers
 * are persisted through the store so that deduplication still holds after a restart.
 */
import type { Coordinator, LeaseGrant, Namespace, Ticket } from "./types.js";
import { LocalLeases } from "./local-leases.js";
import { KeyedMutex, waitFor } from "./keyed-mutex.js";
import { requireDuration, requireKey, resolveLockOptions, type LockOptions } from "./checks.js";

export class LocalCoordinator implements Coordinator {
  readonly #locks = new KeyedMutex();
  readonly #markerGuards = new KeyedMutex();
  private readonly leases = new LocalLeases();
  readonly #lines = new KeyedMutex();
  /** One counter for every line: increasing within each line is all a fencing token needs. */
  #lastToken = 0;

  /** `markers`: where once-only markers live, with their TTL. */
  constructor(private readonly markers: Namespace<1>) {}

  acquireLease(key: string, holder: string, ttlMs: number): Promise<number | null> {
    return this.leases.acquireLease(key, holder, ttlMs);
  }

  renewLease(key: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    return this.leases.renewLease(key, holder, token, ttlMs);
  }

  releaseLease(key: string, holder: string, token: number): Promise<void> {
    return this.leases.releaseLease(key, holder, token);
  }

  leaseHolder(key: string): Promise<LeaseGrant | null> {
    return this.leases.leaseHolder(key);
  }

  announce(group: string, member: string, info: string, ttlMs: number): Promise<void> {
    return this.leases.announce(group, member, info, ttlMs);
  }

  withdraw(group: string, member: string): Promise<void> {
    return this.leases.withdraw(group, member);
  }

  present(group: string): Promise<Array<{ member: string; info: string }>> {
    return this.leases.present(group);
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
