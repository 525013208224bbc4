/** Item lists on SQLite: one row per item in a table of their own, keyed by list and position. */
import type { ItemLists } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireKey } from "./checks.js";
import type { SqliteDb } from "./sqlite-db.js";

const TABLE = "item_lists";
/** Rows per INSERT, well under SQLite's limit on bound parameters. */
const ROWS_PER_INSERT = 300;

export async function createListTable(db: SqliteDb): Promise<void> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (list TEXT NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (list, position)) WITHOUT ROWID`,
  );
}

export class SqliteLists<T> implements ItemLists<T> {
  readonly #prefix: string;

  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly name: string,
    keyPrefix: string,
  ) {
    this.#prefix = `${keyPrefix}${name}:`;
  }

  async writeFrom(key: string, from: number, items: readonly T[]): Promise<void> {
    const list = this.#list(key);
    await this.guard.run("list write", `${this.name}:${key}`, async () => {
      await this.db.run(`DELETE FROM ${TABLE} WHERE list = ? AND position >= ?`, list, from);
      for (let start = 0; start < items.length; start += ROWS_PER_INSERT) {
        const chunk = items.slice(start, start + ROWS_PER_INSERT);
        const values = chunk.flatMap((item, i) => [list, from + start + i, JSON.stringify(item)]);
        await this.db.run(`INSERT OR REPLACE INTO ${TABLE} (list, position, value) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")}`, ...values);
      }
    });
  }

  async read(key: string, until: number, from = 0): Promise<T[]> {
    const list = this.#list(key);
    const rows = await this.guard.run("list read", `${this.name}:${key}`, () =>
      this.db.all<{ value: string }>(`SELECT value FROM ${TABLE} WHERE list = ? AND position >= ? AND position < ? ORDER BY position`, list, from, until),
    );
    return rows.map((row) => JSON.parse(row.value) as T);
  }

  async delete(key: string): Promise<void> {
    const list = this.#list(key);
    await this.guard.run("list delete", `${this.name}:${key}`, () => this.db.run(`DELETE FROM ${TABLE} WHERE list = ?`, list));
  }

  #list(key: string): string {
    requireKey(key, `store list ${this.name}:${key}`);
    return this.#prefix + key;
  }
}
