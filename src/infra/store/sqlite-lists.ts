/** Item lists on SQLite: one row per item in a table of their own, keyed by list and position. */
import { LRUCache } from "lru-cache";
import type { ItemLists } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireCount, requireKey } from "./checks.js";
import { bySize } from "./sqlite-batches.js";
import type { SqliteDb } from "./sqlite-db.js";

const TABLE = "item_lists";
/** Rows per INSERT, well under SQLite's limit on bound parameters. */
const ROWS_PER_INSERT = 300;
/** Lists whose end this process remembers (see ListEnds); past that, the least recently used is forgotten. */
const ENDS_KEPT = 2_000;

const INSERT_ROWS = bySize((rows) => `INSERT OR REPLACE INTO ${TABLE} (list, position, value) VALUES ${Array(rows).fill("(?, ?, ?)").join(", ")}`);
const PUSH = `INSERT INTO ${TABLE} (list, position, value) SELECT ?, COALESCE(MAX(position) + 1, 0), ? FROM ${TABLE} WHERE list = ? RETURNING position`;

export async function createListTable(db: SqliteDb): Promise<void> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (list TEXT NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (list, position)) WITHOUT ROWID`,
  );
}

/**
 * Where each list this process wrote last ends: a write that starts there has nothing to drop, so it skips the
 * DELETE (one statement of the two a history append costs). Shared by the store's SqliteLists. Only this process
 * writes lists on SQLite; a list it does not remember (after a restart, where a crash may have left items past the
 * length its writer recorded) is cleaned as before.
 */
export class ListEnds extends LRUCache<string, number> {
  constructor() {
    super({ max: ENDS_KEPT });
  }
}

export class SqliteLists<T> implements ItemLists<T> {
  readonly #prefix: string;

  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly name: string,
    keyPrefix: string,
    private readonly ends: ListEnds,
  ) {
    this.#prefix = `${keyPrefix}${name}:`;
  }

  async writeFrom(key: string, from: number, items: readonly T[], opts: { fresh?: boolean } = {}): Promise<void> {
    const list = this.#list(key);
    const clean = opts.fresh === true || this.ends.get(list) === from;
    // Forgotten while writing: a write that fails halfway leaves the end unknown.
    this.ends.delete(list);
    await this.guard.run("list write", `${this.name}:${key}`, async () => {
      if (!clean) await this.db.run(`DELETE FROM ${TABLE} WHERE list = ? AND position >= ?`, list, from);
      for (let start = 0; start < items.length; start += ROWS_PER_INSERT) {
        const chunk = items.slice(start, start + ROWS_PER_INSERT);
        const values = chunk.flatMap((item, i) => [list, from + start + i, JSON.stringify(item)]);
        await this.db.run(INSERT_ROWS(chunk.length), ...values);
      }
    });
    this.ends.set(list, from + items.length);
  }

  async read(key: string, until: number, from = 0): Promise<T[]> {
    const list = this.#list(key);
    const rows = await this.guard.run("list read", `${this.name}:${key}`, () =>
      this.db.all<{ value: string }>(`SELECT value FROM ${TABLE} WHERE list = ? AND position >= ? AND position < ? ORDER BY position`, list, from, until),
    );
    return rows.map((row) => JSON.parse(row.value) as T);
  }

  /** One statement; every `keep`th push also drops what is older than the newest `keep`. */
  async push(key: string, item: T, keep: number): Promise<void> {
    const list = this.#list(key);
    requireCount(keep, "keep", `store list push ${this.name}:${key}`);
    await this.guard.run("list push", `${this.name}:${key}`, async () => {
      const [row] = await this.db.all<{ position: number }>(PUSH, list, JSON.stringify(item), list);
      const position = row?.position ?? 0;
      if ((position + 1) % keep === 0) await this.db.run(`DELETE FROM ${TABLE} WHERE list = ? AND position <= ?`, list, position - keep);
    });
  }

  async tail(key: string, count: number): Promise<T[]> {
    const list = this.#list(key);
    if (count <= 0) return [];
    const rows = await this.guard.run("list tail", `${this.name}:${key}`, () =>
      this.db.all<{ value: string }>(`SELECT value FROM ${TABLE} WHERE list = ? ORDER BY position DESC LIMIT ?`, list, count),
    );
    return rows.reverse().map((row) => JSON.parse(row.value) as T);
  }

  async delete(key: string): Promise<void> {
    const list = this.#list(key);
    this.ends.delete(list);
    await this.guard.run("list delete", `${this.name}:${key}`, () => this.db.run(`DELETE FROM ${TABLE} WHERE list = ?`, list));
  }

  #list(key: string): string {
    requireKey(key, `store list ${this.name}:${key}`);
    return this.#prefix + key;
  }
}
