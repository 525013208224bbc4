/**
 * A consistent copy of the SQLite store while the gateway writes to it (SQLite's online backup API, through a
 * connection of its own), what the copy holds, and the rows of a copy read back for a move to Redis.
 */
import Database from "better-sqlite3";
import { KV_TABLE } from "./sqlite-namespace.js";
import { SCHEMA_KEY } from "./schema.js";

/** Pages copied per step after the first: all that is left, so the copy ends in one read rather than restarting under load. */
const ALL_PAGES = 1_000_000_000;

export async function snapshotSqlite(file: string, destination: string): Promise<void> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    await db.backup(destination, { progress: () => ALL_PAGES });
  } finally {
    db.close();
  }
}

export interface SqliteContents {
  /** Key-value records per namespace. */
  records: Record<string, number>;
  /** List items per namespace. */
  listItems: Record<string, number>;
  /** Entry-set entries per namespace. */
  setEntries: Record<string, number>;
  schemaVersion: number;
}

/** What a store file holds, by namespace (the part of each key between the prefix and the next ':'). */
export function sqliteContents(file: string, keyPrefix: string): SqliteContents {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const byNamespace = (sql: string) => {
      const counts: Record<string, number> = {};
      for (const { key } of db.prepare(sql).all() as Array<{ key: string }>) {
        const namespace = namespaceOf(key, keyPrefix) ?? "(other prefix)";
        counts[namespace] = (counts[namespace] ?? 0) + 1;
      }
      return counts;
    };
    const schema = db.prepare(`SELECT value FROM ${KV_TABLE} WHERE key = ?`).get(`${keyPrefix}meta:${SCHEMA_KEY}`) as { value: string } | undefined;
    return {
      records: byNamespace(`SELECT key FROM ${KV_TABLE}`),
      listItems: byNamespace("SELECT list AS key FROM item_lists"),
      setEntries: byNamespace("SELECT set_key AS key FROM entry_sets"),
      schemaVersion: schema ? ((JSON.parse(schema.value) as { value?: { version?: number } }).value?.version ?? 0) : 0,
    };
  } finally {
    db.close();
  }
}

/** Rewrites every key of a store file from one prefix to another (a backup restored under another prefix). */
export function renameSqlitePrefix(file: string, from: string, to: string): void {
  if (from === to) return;
  const db = new Database(file, { fileMustExist: true });
  try {
    db.transaction(() => {
      for (const [table, column] of [[KV_TABLE, "key"], ["item_lists", "list"], ["entry_sets", "set_key"]] as const) {
        db.prepare(`UPDATE ${table} SET ${column} = ? || substr(${column}, ?) WHERE substr(${column}, 1, ?) = ?`).run(to, from.length + 1, from.length, from);
      }
    })();
  } finally {
    db.close();
  }
}

export interface SqliteRows {
  records: Iterable<{ key: string; value: string }>;
  /** Ordered by list, then position. */
  listItems: Iterable<{ list: string; value: string }>;
  /** Ordered by set, then the order the entries were added in. */
  setEntries: Iterable<{ setKey: string; id: string; value: string; expires: number | null }>;
}

/** Reads a store file's rows, each kind in the order it must be written elsewhere; `read` runs while it is open. */
export async function readSqliteRows<T>(file: string, read: (rows: SqliteRows) => Promise<T>): Promise<T> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return await read({
      records: db.prepare(`SELECT key, value FROM ${KV_TABLE}`).iterate() as Iterable<{ key: string; value: string }>,
      listItems: db.prepare("SELECT list, value FROM item_lists ORDER BY list, position").iterate() as Iterable<{ list: string; value: string }>,
      setEntries: db.prepare("SELECT set_key AS setKey, id, value, expires FROM entry_sets ORDER BY set_key, rowid").iterate() as SqliteRows["setEntries"],
    });
  } finally {
    db.close();
  }
}

/** The namespace of a stored key: what follows the prefix up to the next ':'; null for a key of another prefix. */
export function namespaceOf(key: string, keyPrefix: string): string | null {
  if (!key.startsWith(keyPrefix)) return null;
  const rest = key.slice(keyPrefix.length);
  const end = rest.indexOf(":");
  return end === -1 ? rest : rest.slice(0, end);
}
