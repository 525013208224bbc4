/**
 * The coordinator for one process (the SQLite backend): locks are in-process mutexes, and once-only markers
 * are persisted through the store so that deduplication still holds after a restart.
 */
import type { Coordinator, Namespace } from "./types.js";
import { KeyedMutex } from "./keyed-mutex.js";
import { requireDuration, requireKey, resolveLockOptions, type LockOptions } from "./checks.js";

export class LocalCoordinator implements Coordinator {
  readonly #locks = new KeyedMutex();
  readonly #markerGuards = new KeyedMutex();

  /** `markers`: where once-only markers live, with their TTL. */
  constructor(private readonly markers: Namespace<1>) {}

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

  /** Keys currently locked or awaited, for leak checks. */
  get activeLocks(): number {
    return this.#locks.activeKeys + this.#markerGuards.activeKeys;
  }
}
