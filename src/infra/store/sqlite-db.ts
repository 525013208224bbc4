/**
 * One SQLite connection (better-sqlite3) with its statements prepared once and reused. Statements run
 * synchronously: a key-value statement takes a few microseconds in WAL mode with synchronous=NORMAL (no fsync per
 * commit), far less than handing it to a thread and back (sqlite3's way cost ~45 µs of CPU per statement).
 * The methods still answer promises, so a driver error reaches callers as a rejection, like any store failure.
 *
 * Another connection writing the same file (the CLI next to a running gateway) holds the write lock for a while.
 * SQLite's own wait for it blocks the thread, and so the event loop: it is kept short, and a statement that finds
 * the file busy is tried again after a pause in which the loop runs, until BUSY_DEADLINE_MS have passed.
 */
import Database from "better-sqlite3";

/** How long one try may block the thread waiting for another connection's lock (SQLite's busy timeout). */
const BUSY_BLOCK_MS = 20;
/** How long a statement keeps trying, by default, before it fails with SQLITE_BUSY. */
const BUSY_DEADLINE_MS = 10_000;
/** Pauses between tries: doubling from the first to the last. */
const BUSY_PAUSE_MS = { first: 5, last: 200 };

export class SqliteDb {
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(
    private readonly db: Database.Database,
    private readonly busyDeadlineMs: number,
  ) {}

  static async open(file: string, opts: { busyDeadlineMs?: number } = {}): Promise<SqliteDb> {
    return new SqliteDb(new Database(file, { timeout: BUSY_BLOCK_MS }), opts.busyDeadlineMs ?? BUSY_DEADLINE_MS);
  }

  /** The rows the statement answers. */
  all<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    return this.#whenNotBusy(() => this.#prepared(sql).all(...params) as R[]);
  }

  /** Runs the statement; answers how many rows it changed. */
  run(sql: string, ...params: unknown[]): Promise<number> {
    return this.#whenNotBusy(() => this.#prepared(sql).run(...params).changes);
  }

  /** Statements without parameters and without reuse (schema, pragmas): not kept prepared. */
  async exec(sql: string): Promise<void> {
    await this.#whenNotBusy(() => this.db.exec(sql));
  }

  async close(): Promise<void> {
    this.#statements.clear();
    this.db.close();
  }

  /** `call` at once, and again after pauses while another connection holds the lock, until the deadline. */
  async #whenNotBusy<T>(call: () => T): Promise<T> {
    let deadline: number | undefined;
    for (let pause = BUSY_PAUSE_MS.first; ; pause = Math.min(pause * 2, BUSY_PAUSE_MS.last)) {
      try {
        return call();
      } catch (err) {
        // SQLITE_BUSY and its extended codes (a WAL snapshot gone stale, a recovery under way): all pass.
        if (!String((err as { code?: unknown }).code).startsWith("SQLITE_BUSY")) throw err;
        deadline ??= Date.now() + this.busyDeadlineMs;
        if (Date.now() + pause > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  #prepared(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
