/**
 * Raw SQL on a store's SQLite file, through the driver the store uses (better-sqlite3). Never through a second
 * SQLite library: two copies of SQLite in one process do not see each other's POSIX locks, and one closing its
 * connection can checkpoint and remove the WAL the other is using.
 */
import Database from "better-sqlite3";

export function queryFile(file: string, sql: string, ...params: unknown[]): Array<Record<string, unknown>> {
  const db = new Database(file, { fileMustExist: true });
  try {
    const statement = db.prepare(sql);
    if (statement.reader) return statement.all(...params) as Array<Record<string, unknown>>;
    statement.run(...params);
    return [];
  } finally {
    db.close();
  }
}
