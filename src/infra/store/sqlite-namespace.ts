/**
 * A namespace on SQLite straight over the driver (better-sqlite3), in the row format Keyv wrote before (table `keyv`, the value
 * column holding `{"value": ..., "expires": ms}` as JSON), so existing data files read the same. Keyv's layers
 * (hooks, stats, a read before every delete) cost more than the query on the hot path.
 */
import type { Namespace, NamespaceEntry } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireKey } from "./checks.js";
import type { SqliteDb } from "./sqlite-db.js";
import type { SqliteBatches } from "./sqlite-batches.js";
import { storedRow, type StoredRow } from "./store-write.js";

export const KV_TABLE = "keyv";
/** As @keyv/sqlite created it, so a file written by either opens in both. */
export const CREATE_KV_TABLE = `CREATE TABLE IF NOT EXISTS ${KV_TABLE}(key VARCHAR(255) PRIMARY KEY, value TEXT )`;

const DELETE = `DELETE FROM ${KV_TABLE} WHERE key = ?`;
/** One row stored as the namespaces' batched writes store it. */
export const SET_ROW = `INSERT INTO ${KV_TABLE} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`;
/** Rows per statement of setMany, well under SQLite's limit on bound parameters. */
const ROWS_PER_SET = 200;
const setRows = (rows: number): string =>
  `INSERT INTO ${KV_TABLE} (key, value) VALUES ${Array.from({ length: rows }, () => "(?, ?)").join(", ")} ON CONFLICT(key) DO UPDATE SET value = excluded.value`;

export class SqliteNamespace<V> implements Namespace<V> {
  readonly #prefix: string;

  /** Keys are stored as `${keyPrefix}${name}:${key}`. `batches`: shared by the store's namespaces. */
  constructor(
    private readonly db: SqliteDb,
    private readonly batches: SqliteBatches,
    private readonly guard: BackendGuard,
    readonly name: string,
    keyPrefix: string,
  ) {
    this.#prefix = `${keyPrefix}${name}:`;
  }

  async get(key: string): Promise<V | undefined> {
    const target = this.#target(key);
    return this.guard.run("get", target, async () => {
      const stored = await this.batches.get(this.#prefix + key);
      if (stored === undefined) return undefined;
      const row = JSON.parse(stored) as StoredRow | null;
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
    const row = storedRow(target, value, ttlMs);
    // Serialized inside the guard: a value JSON cannot hold is the store's error, as a backend refusal is.
    await this.guard.run("set", target, () => this.batches.set(this.#prefix + key, JSON.stringify(row)));
  }

  async setMany(entries: ReadonlyArray<NamespaceEntry<V>>): Promise<void> {
    const rows = entries.map(({ key, value, ttlMs }) => [this.#prefix + key, storedRow(this.#target(key), value, ttlMs)] as const);
    await this.guard.run("set many", `${this.name}:${entries[0]?.key ?? ""} (+${Math.max(0, entries.length - 1)})`, async () => {
      for (let start = 0; start < rows.length; start += ROWS_PER_SET) {
        const chunk = rows.slice(start, start + ROWS_PER_SET);
        await this.db.run(setRows(chunk.length), ...chunk.flatMap(([key, row]) => [key, JSON.stringify(row)]));
      }
    });
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
