/**
 * One SQLite connection (better-sqlite3) with its statements prepared once and reused. Statements run
 * synchronously: a key-value statement takes a few microseconds in WAL mode with synchronous=NORMAL (no fsync per
 * commit), far less than handing it to a thread and back (sqlite3's way cost ~45 µs of CPU per statement).
 * The methods still answer promises, so a driver error reaches callers as a rejection, like any store failure.
 *
 * Another connection writing the same file (the CLI next to a running gateway) holds the write lock for a while.
 * SQLite's own wait for it would block the thread, and so the event loop: it is kept to a few milliseconds. A
 * statement that finds the file locked waits in a line with every statement asked for after it, in order (a later
 * write must not land before an earlier one), and only the first of the line is tried again, after pauses in which
 * the loop runs, until its deadline.
 */
import { setTimeout as delay } from "node:timers/promises";
import Database from "better-sqlite3";

/** How long one try may block the thread waiting for another connection's lock (SQLite's busy timeout). */
const BUSY_BLOCK_MS = 5;
/** How long a statement may wait in line, by default, before it fails with SQLITE_BUSY. */
const BUSY_DEADLINE_MS = 10_000;
/** Pauses between tries of the first in line: doubling from the first to the last, back to the first after progress. */
const BUSY_PAUSE_MS = { first: 5, last: 100 };

interface Waiting {
  call: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  deadline: number;
}

/** The statements `SqliteDb.inLine` hands its work: run synchronously, each committed on its own. */
export interface InLineStatements {
  all<R>(sql: string, ...params: unknown[]): R[];
  run(sql: string, ...params: unknown[]): number;
}

export class SqliteDb {
  readonly #prepared = new Map<string, Database.Statement>();
  readonly #statements: InLineStatements = {
    all: <R>(sql: string, ...params: unknown[]) => this.#statement(sql).all(...params) as R[],
    run: (sql: string, ...params: unknown[]) => this.#statement(sql).run(...params).changes,
  };
  /** Statements waiting for another connection's lock, in the order they were asked for. */
  readonly #waiting: Waiting[] = [];
  /** Settles when the line is empty. */
  #drained: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: Database.Database,
    private readonly busyDeadlineMs: number,
  ) {}

  static async open(file: string, opts: { busyDeadlineMs?: number } = {}): Promise<SqliteDb> {
    return new SqliteDb(new Database(file, { timeout: BUSY_BLOCK_MS }), opts.busyDeadlineMs ?? BUSY_DEADLINE_MS);
  }

  /** The rows the statement answers. */
  all<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    return this.#inOrder(() => this.#statement(sql).all(...params) as R[]);
  }

  /** Runs the statement; answers how many rows it changed. */
  run(sql: string, ...params: unknown[]): Promise<number> {
    return this.#inOrder(() => this.#statement(sql).run(...params).changes);
  }

  /** Runs the statements in one transaction: all of them are committed, or none. */
  transaction(statements: ReadonlyArray<{ sql: string; params: unknown[] }>): Promise<void> {
    return this.#inOrder(() =>
      this.db.transaction(() => {
        for (const { sql, params } of statements) this.#statement(sql).run(...params);
      })(),
    );
  }

  /**
   * Runs `work` in its turn among the statements, synchronously, each of its statements committed on its own: what
   * `work` keeps in memory beside the rows changes in the same step as they do.
   */
  inLine<T>(work: (db: InLineStatements) => T): Promise<T> {
    return this.#inOrder(() => work(this.#statements));
  }

  /**
   * One statement without parameters and without reuse (schema, pragmas): not kept prepared. Not several in one
   * text: after SQLITE_BUSY the text is run again from its first statement.
   */
  async exec(sql: string): Promise<void> {
    await this.#inOrder(() => this.db.exec(sql));
  }

  /** Closes once the statements waiting for the lock have run or failed (and any a waiter's caller asked for next). */
  async close(): Promise<void> {
    while (this.#waiting.length > 0) await this.#drained;
    this.#prepared.clear();
    this.db.close();
  }

  /** `call` now, unless statements wait for the lock: then, like a call that finds it taken, after them. */
  #inOrder<T>(call: () => T): Promise<T> {
    if (this.#waiting.length === 0) {
      try {
        return Promise.resolve(call());
      } catch (err) {
        if (!isBusy(err)) return Promise.reject(err);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ call, resolve: resolve as (value: unknown) => void, reject, deadline: Date.now() + this.busyDeadlineMs });
      if (this.#waiting.length === 1) this.#drained = this.#drain();
    });
  }

  async #drain(): Promise<void> {
    for (let pause = BUSY_PAUSE_MS.first; this.#waiting.length > 0; ) {
      await delay(pause);
      pause = this.#runWaiting() ? BUSY_PAUSE_MS.first : Math.min(pause * 2, BUSY_PAUSE_MS.last);
    }
  }

  /** Runs the line in order until its first finds the lock taken again; whether any statement left the line. */
  #runWaiting(): boolean {
    let progressed = false;
    for (let head = this.#waiting[0]; head !== undefined; head = this.#waiting[0]) {
      try {
        head.resolve(head.call());
      } catch (err) {
        if (!isBusy(err)) head.reject(err);
        else if (Date.now() < head.deadline) return progressed;
        else {
          // Those behind it that are past their deadline too fail with it, untried: each try may block the
          // thread for BUSY_BLOCK_MS, and a long line of them would hold the event loop as SQLite's own wait did.
          const now = Date.now();
          const expired = this.#waiting.findIndex((waiting) => waiting.deadline > now);
          for (const waiting of this.#waiting.splice(0, expired === -1 ? this.#waiting.length : expired)) waiting.reject(err);
          return true;
        }
      }
      this.#waiting.shift();
      progressed = true;
    }
    return progressed;
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }
}

/** SQLITE_BUSY and its extended codes (a WAL snapshot gone stale, a recovery under way). */
function isBusy(err: unknown): boolean {
  return String((err as { code?: unknown } | null)?.code).startsWith("SQLITE_BUSY");
}
