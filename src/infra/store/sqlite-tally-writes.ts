/**
 * Unbounded tally additions on SQLite (usage accounting), gathered in memory for up to a second and written as one
 * statement: a model call's record is about thirty rows, and written on its own it cost a statement (and a WAL
 * commit) per call, more than any other statement of a message. Gathered, the commit is shared and the rows of keys
 * many calls add to (the gateway's own sums) are merged. Only this process writes the file, so what waits here is
 * part of every sum it reads: reads count it in the same synchronous step as their statement. A stop writes what
 * waits; a process killed outright loses the accounting of its last second. Another process reading the file (the
 * usage CLI) sees it within the second.
 *
 * Bounded additions (budget reservations, QQ's msg_seq values) never wait here: they are state a kill must not lose,
 * so each is written in the same synchronous step as its check, together with what waits for the same fields.
 */
import type { Clock } from "../../core/clock.js";
import type { Logger } from "../log.js";
import type { BackendGuard } from "./backend-guard.js";
import type { InLineStatements, SqliteDb } from "./sqlite-db.js";
import { MergedSums, WRITE_SUMS, type MergedSum, type TallyRow } from "./sqlite-tally-rows.js";

/** How long an addition may wait in memory. */
const WINDOW_MS = 1_000;
/** Fields waiting that make a write go at once. */
const MAX_ROWS = 2_000;
/** Fields that may wait while writes fail: past them, additions to other fields are dropped. */
const MAX_WAITING = 100_000;
/** The longest pause between tries while writes fail (the pause doubles from WINDOW_MS). */
const MAX_RETRY_MS = 30_000;

export class TallyWrites {
  #waiting = new MergedSums();
  #cancelTimer: (() => void) | undefined;
  /** The write under way, if any: at most one at a time. */
  #writing: Promise<void> | undefined;
  /** The pause before the next try while writes fail; undefined while they succeed. */
  #retryMs: number | undefined;
  /** Additions dropped since the last write that succeeded. */
  #dropped = 0;
  #closed = false;

  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** Adds the rows to what waits: written within the window, or at once when many wait (unless writes fail). */
  add(rows: readonly TallyRow[]): void {
    for (const row of rows) if (!this.#waiting.add(row, MAX_WAITING)) this.#drop();
    if (this.#waiting.size >= MAX_ROWS && this.#retryMs === undefined && !this.#writing && !this.#closed) this.#startWrite();
    else this.#schedule(this.#retryMs ?? WINDOW_MS);
  }

  /** What waits for `key` (as stored), by field. */
  waitingOf(key: string): ReadonlyMap<string, MergedSum> | undefined {
    return this.#waiting.of(key);
  }

  /** Where the sweep may delete sums expired before: none an addition waiting to be written still adds to. */
  sweepBefore(now: number): number {
    return Math.min(now, this.#waiting.earliest() ?? now);
  }

  /**
   * Writes `rows` now, in `db`'s synchronous step, in one statement with what waits for the same fields (which
   * then leaves memory): what waits was added first, so it is merged first.
   */
  writeWith(db: InLineStatements, rows: readonly TallyRow[]): void {
    const batch = new MergedSums();
    for (const row of rows) {
      const waiting = this.#waiting.of(row.key)?.get(row.field);
      if (waiting && !batch.of(row.key)?.has(row.field)) batch.put(row.key, row.field, waiting);
      batch.add(row);
    }
    db.run(WRITE_SUMS, batch.json());
    for (const [key, field] of batch.fields()) this.#waiting.delete(key, field);
  }

  /** Stops the timer for good and writes what waits; fails when that write does. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    await this.#writing;
    if (this.#waiting.size > 0) await this.#write();
    this.#written();
  }

  /**
   * Writes what waits, in one statement. The rows leave memory in the same synchronous step as the statement that
   * stored them, so a read never counts them twice or misses them; after a failure they wait for the next try.
   */
  async #write(): Promise<void> {
    let sums = this.#waiting.size;
    try {
      // Not through the guard's run: the store's close writes what waits after the guard stopped taking calls.
      await this.db.inLine((db) => {
        sums = this.#waiting.size;
        if (sums === 0) return;
        db.run(WRITE_SUMS, this.#waiting.json());
        this.#waiting = new MergedSums();
      });
    } catch (err) {
      throw this.guard.wrap("tally add", `tallies (${sums} sums)`, err);
    }
  }

  /** The timer's and a full buffer's write: a failure is logged once until a write succeeds, and tried again later. */
  #startWrite(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#writing = this.#write()
      .then(
        () => this.#written(),
        (err: unknown) => {
          if (this.#retryMs === undefined) this.log.warn({ err }, "could not write tally additions; they wait in memory and are tried again");
          this.#retryMs = Math.min(this.#retryMs === undefined ? WINDOW_MS : this.#retryMs * 2, MAX_RETRY_MS);
        },
      )
      .finally(() => {
        this.#writing = undefined;
        if (this.#waiting.size > 0) this.#schedule(this.#retryMs ?? (this.#waiting.size >= MAX_ROWS ? 0 : WINDOW_MS));
      });
  }

  #written(): void {
    if (this.#dropped > 0) this.log.error({ dropped: this.#dropped }, `tally additions are written again; ${this.#dropped} of them were dropped meanwhile`);
    this.#retryMs = undefined;
    this.#dropped = 0;
  }

  #drop(): void {
    if (this.#dropped === 0) {
      this.log.error({ waiting: MAX_WAITING }, `${MAX_WAITING} tally sums wait unwritten; additions to other sums are dropped until a write succeeds`);
    }
    this.#dropped += 1;
  }

  #schedule(ms: number): void {
    if (this.#closed || this.#cancelTimer || this.#writing) return;
    this.#cancelTimer = this.clock.setTimer(ms, () => {
      this.#cancelTimer = undefined;
      this.#startWrite();
    });
  }
}
