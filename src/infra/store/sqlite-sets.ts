/**
 * Entry sets on SQLite: a row per entry in a table of their own, in the order added (rowid). Values are serialized
 * inside the guard: a value JSON cannot hold is the store's error, as in the namespaces.
 */
import type { EntrySets } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireDuration, requireSetEntry } from "./checks.js";
import type { SqliteDb } from "./sqlite-db.js";

const TABLE = "entry_sets";

export async function createSetTable(db: SqliteDb): Promise<void> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (set_key TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, expires INTEGER, UNIQUE (set_key, id))`,
  );
}

/** Run by the store's sweep: entries past their TTL, which `all` already leaves out. */
export const SWEEP_SETS_SQL = `DELETE FROM ${TABLE} WHERE expires < ?`;

const LIVE = "(expires IS NULL OR expires >= ?)";
const ADD = `INSERT INTO ${TABLE} (set_key, id, value, expires) VALUES (?, ?, ?, ?) ON CONFLICT (set_key, id) DO NOTHING`;
const DROP_EXPIRED = `DELETE FROM ${TABLE} WHERE set_key = ? AND id = ? AND expires < ?`;
const REPLACE = `UPDATE ${TABLE} SET value = ? WHERE set_key = ? AND id = ? AND ${LIVE}`;
/** Parameters: the set's full key, the entry's id. */
export const REMOVE_ENTRY = `DELETE FROM ${TABLE} WHERE set_key = ? AND id = ?`;
const ALL = `SELECT value FROM ${TABLE} WHERE set_key = ? AND ${LIVE} ORDER BY rowid`;

export class SqliteSets<T> implements EntrySets<T> {
  /** `prefix`: what the store puts before every key of this namespace's sets. */
  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly name: string,
    private readonly prefix: string,
  ) {}

  async add(key: string, id: string, entry: T, ttlMs?: number): Promise<boolean> {
    const set = this.#set(key, id);
    if (ttlMs !== undefined) requireDuration(ttlMs, "ttlMs", `store set add ${this.name}:${key}`);
    return this.guard.run("set add", `${this.name}:${key}`, async () => {
      const now = Date.now();
      const value = JSON.stringify(entry);
      const add = async () => (await this.db.run(ADD, set, id, value, ttlMs === undefined ? null : now + ttlMs)) > 0;
      // An expired entry with the id gives way, and the new one goes to the end (a new rowid).
      return (await add()) || ((await this.db.run(DROP_EXPIRED, set, id, now)) > 0 && (await add()));
    });
  }

  async replace(key: string, id: string, entry: T): Promise<boolean> {
    const set = this.#set(key, id);
    return this.guard.run("set replace", `${this.name}:${key}`, async () => (await this.db.run(REPLACE, JSON.stringify(entry), set, id, Date.now())) > 0);
  }

  async remove(key: string, id: string): Promise<void> {
    const set = this.#set(key, id);
    await this.guard.run("set remove", `${this.name}:${key}`, () => this.db.run(REMOVE_ENTRY, set, id));
  }

  async all(key: string): Promise<T[]> {
    const set = this.#set(key);
    const rows = await this.guard.run("set read", `${this.name}:${key}`, () => this.db.all<{ value: string }>(ALL, set, Date.now()));
    return rows.map((row) => JSON.parse(row.value) as T);
  }

  #set(key: string, id?: string): string {
    requireSetEntry(this.name, key, id);
    return this.prefix + key;
  }
}
