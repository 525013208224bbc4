/**
 * In-process mutual exclusion per key. Kept over async-mutex, which has no keyed lock: a map of its mutexes with
 * idle cleanup and a wait deadline would be longer than this chain.
 */
import { raceDeadline } from "./deadline.js";
import { LockTimeoutError } from "./errors.js";

/** A place in a key's chain: `ready` resolves when every earlier place is released. */
export interface Place {
  ready: Promise<void>;
  /** Lets the next place in; idempotent. */
  release(): void;
}

/**
 * One promise chain per key: each caller waits for the one before it, in arrival order. A key's entry is
 * removed once its chain is idle, so keys used once (chat ids, message ids) do not accumulate.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /** Keys with a holder or waiters. */
  get activeKeys(): number {
    return this.#tails.size;
  }

  /** Takes the next place of `key` now; the caller waits for `ready` and must release it, whatever happens. */
  reserve(key: string): Place {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next caller waits for both: a caller that gave up waiting must not let the next one in early.
    const tail = previous.then(() => done);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return { ready: previous, release };
  }

  /** Runs `fn` alone for `key`; with `waitMs`, gives up with a LockTimeoutError if the key stays held that long. */
  async run<T>(key: string, fn: () => Promise<T>, waitMs?: number): Promise<T> {
    const place = this.reserve(key);
    try {
      await waitFor(place, key, waitMs);
      return await fn();
    } finally {
      place.release();
    }
  }
}

export async function waitFor(place: Place, key: string, waitMs: number | undefined): Promise<void> {
  if (waitMs !== undefined) await raceDeadline(place.ready, waitMs, () => new LockTimeoutError(key, waitMs));
  else await place.ready;
}
