/**
 * Key-value reads and writes asked for in the same turn of the event loop, by any namespace, sent to SQLite as one
 * statement each (`WHERE key IN (...)`, a multi-row upsert): the reads a turn makes side by side (a person's profile
 * and memory revision), and the reads and writes of messages handled at the same time, cost one statement (and one
 * commit) instead of one each. Nothing is cached: a read runs after it was asked, so it sees every write that
 * finished before; a write resolves once committed. Of two writes of one key in one turn the later one is stored.
 */
import type { SqliteDb } from "./sqlite-db.js";

/** Keys per statement; a statement is prepared for a power of two of keys (the last one repeated). */
const MAX_KEYS = 128;

interface Waiter<R> {
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/** Requests of one turn by key: `send` gets each key once, with the last value asked for, and answers per key. */
class TurnBatch<V, R> {
  #pending = new Map<string, { value: V; waiters: Array<Waiter<R>> }>();
  #scheduled = false;
  /** Settles when the requests asked for so far are answered. */
  #flushed: Promise<void> = Promise.resolve();

  constructor(private readonly send: (entries: Array<[string, V]>) => Promise<(key: string) => R>) {}

  ask(key: string, value: V): Promise<R> {
    return new Promise((resolve, reject) => {
      const pending = this.#pending.get(key);
      if (pending) {
        pending.value = value;
        pending.waiters.push({ resolve, reject });
      } else {
        this.#pending.set(key, { value, waiters: [{ resolve, reject }] });
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        const earlier = this.#flushed;
        this.#flushed = new Promise((done) => setImmediate(() => void this.#flush().then(() => earlier.then(done))));
      }
    });
  }

  settled(): Promise<void> {
    return this.#flushed;
  }

  /** Whether a request of `key` waits for the next flush. */
  asked(key: string): boolean {
    return this.#pending.has(key);
  }

  async #flush(): Promise<void> {
    const batch = [...this.#pending];
    this.#pending = new Map();
    this.#scheduled = false;
    const chunks = Array.from({ length: Math.ceil(batch.length / MAX_KEYS) }, (_, i) => batch.slice(i * MAX_KEYS, (i + 1) * MAX_KEYS));
    await Promise.all(
      chunks.map(async (chunk) => {
        try {
          const answer = await this.send(chunk.map(([key, { value }]) => [key, value]));
          for (const [key, { waiters }] of chunk) for (const w of waiters) w.resolve(answer(key));
        } catch (err) {
          for (const [, { waiters }] of chunk) for (const w of waiters) w.reject(err);
        }
      }),
    );
  }
}

export class SqliteBatches {
  readonly #reads: TurnBatch<null, string | undefined>;
  readonly #writes: TurnBatch<string, void>;

  constructor(db: SqliteDb, table: string) {
    const readSql = bySize((slots) => `SELECT key, value FROM ${table} WHERE key IN (${Array(slots).fill("?").join(", ")})`);
    const writeSql = bySize(
      (slots) => `INSERT INTO ${table} (key, value) VALUES ${Array(slots).fill("(?, ?)").join(", ")} ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    );
    this.#reads = new TurnBatch(async (entries) => {
      const keys = padded(entries.map(([key]) => key));
      const rows = await db.all<{ key: string; value: string }>(readSql(keys.length), ...keys);
      const found = new Map(rows.map((row) => [row.key, row.value]));
      return (key) => found.get(key);
    });
    this.#writes = new TurnBatch<string, void>(async (entries) => {
      const rows = padded(entries);
      await db.run(writeSql(rows.length), ...rows.flat());
      return () => {};
    });
  }

  /** The stored text of `key`, or undefined when there is no row. */
  get(key: string): Promise<string | undefined> {
    return this.#reads.ask(key, null);
  }

  /** Resolves once everything asked for so far is answered: before the connection closes. */
  async settled(): Promise<void> {
    await Promise.all([this.#reads.settled(), this.#writes.settled()]);
  }

  /** Whether a write of `key` was asked for and not yet sent. */
  writing(key: string): boolean {
    return this.#writes.asked(key);
  }

  /** Stores `value` (the row's text) under `key`. */
  set(key: string, value: string): Promise<void> {
    return this.#writes.ask(key, value);
  }
}

/**
 * The statement's text for a number of keys or rows, built once per number: the same string each time is also a
 * cheap key for the prepared statement (V8 keeps a string's hash).
 */
export function bySize(build: (slots: number) => string): (slots: number) => string {
  const built = new Map<number, string>();
  return (slots) => {
    let sql = built.get(slots);
    if (sql === undefined) {
      sql = build(slots);
      built.set(slots, sql);
    }
    return sql;
  };
}

/** `items` and copies of its last one, up to the next power of two: few distinct statements to prepare. */
function padded<T>(items: T[]): T[] {
  const slots = 2 ** Math.ceil(Math.log2(items.length));
  return [...items, ...Array.from({ length: slots - items.length }, () => items[items.length - 1]!)];
}
