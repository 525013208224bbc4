/**
 * A namespace on SQLite straight over sqlite3, in the row format Keyv wrote before (table `keyv`, the value
 * column holding `{"value": ..., "expires": ms}` as JSON), so existing data files read the same. Keyv's layers
 * (hooks, stats, a read before every delete) cost more than the query on the hot path.
 */
import type { Namespace } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireDuration, requireKey } from "./checks.js";
import type { SqliteDb } from "./sqlite-db.js";

export const KV_TABLE = "keyv";
/** As @keyv/sqlite created it, so a file written by either opens in both. */
export const CREATE_KV_TABLE = `CREATE TABLE IF NOT EXISTS ${KV_TABLE}(key VARCHAR(255) PRIMARY KEY, value TEXT )`;

const GET = `SELECT value FROM ${KV_TABLE} WHERE key = ?`;
const SET = `INSERT INTO ${KV_TABLE} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`;
const DELETE = `DELETE FROM ${KV_TABLE} WHERE key = ?`;

interface Row {
  value: unknown;
  expires?: number;
}

export class SqliteNamespace<V> implements Namespace<V> {
  readonly #prefix: string;

  /** Keys are stored as `${keyPrefix}${name}:${key}`. */
  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    readonly name: string,
    keyPrefix: string,
  ) {
    this.#prefix = `${keyPrefix}${name}:`;
  }

  async get(key: string): Promise<V | undefined> {
    const target = this.#target(key);
    return this.guard.run("get", target, async () => {
      const rows = await this.db.all<{ value: string }>(GET, this.#prefix + key);
      if (rows.length === 0) return undefined;
      const row = JSON.parse(rows[0]!.value) as Row | null;
      if (row === null) return undefined;
      if (typeof row.expires === "number" && Date.now() > row.expires) {
        await this.db.run(DELETE, this.#prefix + key);
        return undefined;
      }
      return row.value as V;
    });
  }

  async set(key: string, value: V, ttlMs?: number): Promise<void> {
    const target = this.#target(key);
    if (value === undefined) throw new TypeError(`store set ${target}: the value is undefined (use delete)`);
    if (ttlMs !== undefined) requireDuration(ttlMs, "ttlMs", `store set ${target}`);
    const row: Row = ttlMs === undefined ? { value } : { value, expires: Date.now() + ttlMs };
    await this.guard.run("set", target, () => this.db.run(SET, this.#prefix + key, JSON.stringify(row)));
  }

  async delete(key: string): Promise<boolean> {
    const target = this.#target(key);
    return this.guard.run("delete", target, async () => (await this.db.run(DELETE, this.#prefix + key)) > 0);
  }

  /** `name:key` for messages, after checking the key. */
  #target(key: string): string {
    const target = `${this.name}:${key}`;
    requireKey(key, `store ${target}`);
    return target;
  }
}
