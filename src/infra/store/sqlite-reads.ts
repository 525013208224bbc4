/**
 * Reads of the key-value table asked for in the same turn of the event loop, by any namespace, answered by one
 * statement (`WHERE key IN (...)`): the reads a turn makes side by side (a person's profile and memory revision),
 * and those of messages handled at the same time, cost one trip to SQLite's thread instead of one each. Nothing is
 * cached: each read runs after it was asked, so it sees every write that finished before.
 */
import type { SqliteDb } from "./sqlite-db.js";

/** Keys per statement; the statement is prepared for a power of two of keys (the last one repeated). */
const MAX_KEYS = 256;

interface Waiter {
  resolve: (value: string | undefined) => void;
  reject: (err: unknown) => void;
}

export class BatchedReads {
  #pending = new Map<string, Waiter[]>();
  #scheduled = false;

  constructor(
    private readonly db: SqliteDb,
    private readonly table: string,
  ) {}

  /** The stored text of `key`, or undefined when there is no row. */
  get(key: string): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.#pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    this.#scheduled = false;
    const keys = [...batch.keys()];
    await Promise.all(
      Array.from({ length: Math.ceil(keys.length / MAX_KEYS) }, async (_, i) => {
        const chunk = keys.slice(i * MAX_KEYS, (i + 1) * MAX_KEYS);
        try {
          const rows = await this.db.all<{ key: string; value: string }>(this.#select(chunk.length), ...padded(chunk));
          const found = new Map(rows.map((row) => [row.key, row.value]));
          for (const key of chunk) for (const waiter of batch.get(key)!) waiter.resolve(found.get(key));
        } catch (err) {
          for (const key of chunk) for (const waiter of batch.get(key)!) waiter.reject(err);
        }
      }),
    );
  }

  #select(keys: number): string {
    return `SELECT key, value FROM ${this.table} WHERE key IN (${Array.from({ length: slots(keys) }, () => "?").join(", ")})`;
  }
}

/** The next power of two: few distinct statements to prepare. */
const slots = (keys: number): number => 2 ** Math.ceil(Math.log2(keys));

const padded = (keys: string[]): string[] => [...keys, ...Array.from({ length: slots(keys.length) - keys.length }, () => keys[keys.length - 1]!)];
