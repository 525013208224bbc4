/**
 * One sqlite3 connection with its statements prepared once and reused: preparing a statement for every call (as
 * @keyv/sqlite does) was a tenth of the gateway's CPU time per message. sqlite3 runs a statement's calls one after
 * another, so a shared statement is safe for overlapping callers.
 */
import sqlite3 from "sqlite3";

export class SqliteDb {
  readonly #statements = new Map<string, sqlite3.Statement>();

  private constructor(private readonly db: sqlite3.Database) {}

  static open(file: string): Promise<SqliteDb> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(new SqliteDb(db))));
    });
  }

  /** The rows the statement answers. */
  all<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    const statement = this.#prepared(sql);
    return new Promise((resolve, reject) => {
      statement.all(params, (err: Error | null, rows: R[]) => (err ? reject(err) : resolve(rows)));
    });
  }

  /** Runs the statement; answers how many rows it changed. */
  run(sql: string, ...params: unknown[]): Promise<number> {
    const statement = this.#prepared(sql);
    return new Promise((resolve, reject) => {
      statement.run(params, function (this: sqlite3.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve(this.changes);
      });
    });
  }

  /** Statements without parameters and without reuse (schema, pragmas): not kept prepared. */
  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  async close(): Promise<void> {
    const statements = [...this.#statements.values()];
    this.#statements.clear();
    await Promise.all(statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))));
    await new Promise<void>((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }

  #prepared(sql: string): sqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
