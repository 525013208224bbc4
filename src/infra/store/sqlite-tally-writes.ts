/**
 * Tally additions on SQLite, gathered in memory for up to a second and written as one statement: a model call's
 * record is about thirty rows, and written on its own it cost a statement (and a WAL commit) per call, more than any
 * other statement of a message. Gathered, the commit is shared and the rows of keys many calls add to (the gateway's
 * own sums) are merged. Only this process writes the file, so what waits here is part of every sum it reads: reads
 * and bounded additions add it in the same synchronous step as their statement. A stop writes what waits; a process
 * killed outright loses the additions of its last second (accounting only: no message depends on them). Another
 * process reading the file (the usage CLI) sees them within the second.
 */
import type { Logger } from "../log.js";
import type { BackendGuard } from "./backend-guard.js";
import type { AtomicStatements, SqliteDb } from "./sqlite-db.js";
import { bySize } from "./sqlite-batches.js";

export const TALLY_TABLE = "tallies";
/** How long an addition may wait in memory. */
const WINDOW_MS = 1_000;
/** Rows that make a write go at once: one statement holds them well within SQLite's limit on parameters. */
const MAX_ROWS = 2_000;

/** Parameters: key, field, amount, expires per row, then now. An expired sum starts again from the amount. */
const ADD = bySize(
  (rows) => `INSERT INTO ${TALLY_TABLE} (tally_key, field, sum, expires) VALUES ${Array(rows).fill("(?, ?, ?, ?)").join(", ")}
  ON CONFLICT (tally_key, field) DO UPDATE SET sum = CASE WHEN expires < ? THEN excluded.sum ELSE sum + excluded.sum END, expires = excluded.expires`,
);

/** One field's addition: the amount and the key's expiry after it (a later addition's replaces it). */
export interface TallyRow {
  /** The key as stored (with the store's prefix). */
  key: string;
  field: string;
  amount: number;
  expires: number;
}

export class TallyWrites {
  /** Waiting additions by stored key, then field. */
  #waiting = new Map<string, Map<string, { sum: number; expires: number }>>();
  #rows = 0;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly log: Logger,
  ) {}

  /** Adds the rows to what waits: written within the window, or at once when many wait. */
  add(rows: readonly TallyRow[]): void {
    for (const { key, field, amount, expires } of rows) {
      let fields = this.#waiting.get(key);
      if (!fields) this.#waiting.set(key, (fields = new Map()));
      const seen = fields.get(field);
      if (seen) {
        seen.sum += amount;
        seen.expires = Math.max(seen.expires, expires);
      } else {
        fields.set(field, { sum: amount, expires });
        this.#rows += 1;
      }
    }
    if (this.#rows >= MAX_ROWS) void this.#flushLogged();
    else this.#timer ??= setTimeout(() => void this.#flushLogged(), WINDOW_MS).unref();
  }

  /** What waits for `key` (as stored), by field. */
  waitingOf(key: string): ReadonlyMap<string, { sum: number }> | undefined {
    return this.#waiting.get(key);
  }

  /**
   * Writes what waits, in one statement. The rows leave memory in the same synchronous step as the statement that
   * stored them, so a read never counts them twice or misses them; after a failure they wait for the next try.
   */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#rows === 0) return;
    const target = `tallies (${this.#rows} sums)`;
    // Not through the guard's run: the store's close writes what waits after the guard stopped taking calls.
    await this.db.inLine((db) => this.#write(db)).catch((err: unknown) => {
      throw this.guard.wrap("tally add", target, err);
    });
  }

  #write(db: AtomicStatements): void {
    if (this.#rows === 0) return;
    const params: unknown[] = [];
    for (const [key, fields] of this.#waiting) for (const [field, { sum, expires }] of fields) params.push(key, field, sum, expires);
    db.run(ADD(this.#rows), ...params, Date.now());
    this.#waiting = new Map();
    this.#rows = 0;
  }

  /** The timer's and a full buffer's write: a failure is logged once until a write succeeds, and tried again. */
  async #flushLogged(): Promise<void> {
    try {
      await this.flush();
      this.#failing = false;
    } catch (err) {
      if (!this.#failing) this.log.warn({ err }, "could not write tally additions; they wait in memory and are tried again");
      this.#failing = true;
      this.#timer ??= setTimeout(() => void this.#flushLogged(), WINDOW_MS).unref();
    }
  }
}
