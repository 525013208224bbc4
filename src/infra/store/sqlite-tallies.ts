/**
 * Tallies on SQLite: a row per key and field in a table of their own, with its expiry. Only this process writes the
 * file, so a bounded addition is atomic as one transaction that reads the bounds and adds. Each step is one
 * statement however many fields it touches (a model call's record is about fifty): a statement per field made
 * accounting cost more than the rest of a turn's statements together.
 */
import type { Tallies, TallyBound, TallyChange } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireTallies } from "./checks.js";
import type { AtomicStatements, SqliteDb } from "./sqlite-db.js";
import { bySize } from "./sqlite-batches.js";

const TABLE = "tallies";

export async function createTallyTable(db: SqliteDb): Promise<void> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (tally_key TEXT NOT NULL, field TEXT NOT NULL, sum REAL NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (tally_key, field)) WITHOUT ROWID`,
  );
}

/** Run by the store's sweep: sums past their expiry, which reads already leave out. */
export const SWEEP_TALLIES_SQL = `DELETE FROM ${TABLE} WHERE expires < ?`;

/** Parameters: key, field, amount, expires per row, then now. An expired sum starts again from the amount. */
const ADD = bySize(
  (rows) => `INSERT INTO ${TABLE} (tally_key, field, sum, expires) VALUES ${Array(rows).fill("(?, ?, ?, ?)").join(", ")}
  ON CONFLICT (tally_key, field) DO UPDATE SET sum = CASE WHEN expires < ? THEN excluded.sum ELSE sum + excluded.sum END, expires = excluded.expires`,
);
/** Parameters: now, then the keys. */
const READ_KEYS = bySize((keys) => `SELECT tally_key, field, sum FROM ${TABLE} WHERE expires >= ? AND tally_key IN (${Array(keys).fill("?").join(", ")})`);

interface TallyRow {
  tally_key: string;
  field: string;
  sum: number;
}

export class SqliteTallies implements Tallies {
  /** `prefix`: what the store puts before every key of this namespace's tallies. */
  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly name: string,
    private readonly prefix: string,
  ) {}

  /** One statement, atomic on its own: no transaction around it. */
  async add(changes: readonly TallyChange[]): Promise<void> {
    requireTallies(this.name, changes, []);
    const { sql, params } = this.#addition(changes, Date.now());
    if (params.length === 0) return;
    await this.guard.run("tally add", `${this.name}:${changes.map((c) => c.key).join(",")}`, () => this.db.run(sql, ...params));
  }

  async addWithin(changes: readonly TallyChange[], bounds: readonly TallyBound[]): Promise<{ added: boolean; sums: number[] }> {
    requireTallies(this.name, changes, bounds);
    const target = `${this.name}:${changes.map((c) => c.key).join(",")}`;
    return this.guard.run("tally add", target, () =>
      this.db.atomically((db) => {
        const now = Date.now();
        const boundKeys = [...new Set(bounds.map((bound) => bound.key))];
        const sums = () => {
          const read = this.#read(db, boundKeys, now);
          return bounds.map(({ key, field }) => read[boundKeys.indexOf(key)]![field] ?? 0);
        };
        const before = bounds.length === 0 ? [] : sums();
        if (before.some((sum, i) => sum >= bounds[i]!.limit)) return { added: false, sums: before };
        const { sql, params } = this.#addition(changes, now);
        if (params.length > 0) db.run(sql, ...params);
        return { added: true, sums: bounds.length === 0 ? [] : sums() };
      }),
    );
  }

  async read(keys: readonly string[]): Promise<Array<Record<string, number>>> {
    return this.guard.run("tally read", `${this.name}:${keys.join(",")}`, async () => {
      if (keys.length === 0) return [];
      const now = Date.now();
      return this.#sumsByKey(keys, await this.db.all<TallyRow>(READ_KEYS(new Set(keys).size), now, ...new Set(keys.map((key) => this.prefix + key))));
    });
  }

  /** Each key's live sums, in one statement. */
  #read(db: AtomicStatements, keys: readonly string[], now: number): Array<Record<string, number>> {
    if (keys.length === 0) return [];
    const full = new Set(keys.map((key) => this.prefix + key));
    return this.#sumsByKey(keys, db.all<TallyRow>(READ_KEYS(full.size), now, ...full));
  }

  #sumsByKey(keys: readonly string[], rows: readonly TallyRow[]): Array<Record<string, number>> {
    const byKey = new Map(keys.map((key) => [this.prefix + key, {} as Record<string, number>]));
    for (const row of rows) byKey.get(row.tally_key)![row.field] = row.sum;
    return keys.map((key) => byKey.get(this.prefix + key)!);
  }

  /** Every change's amounts as one statement (a field named twice is added twice, a zero left out); no parameters when there is nothing to add. */
  #addition(changes: readonly TallyChange[], now: number): { sql: string; params: unknown[] } {
    const rows = new Map<string, [key: string, field: string, amount: number, expires: number]>();
    for (const { key, amounts, ttlMs } of changes) {
      for (const [field, amount] of Object.entries(amounts)) {
        // Most of a model call's fields are zero (no cached input, no prices set): rows that add nothing cost SQLite
        // the same as the others.
        if (amount === 0) continue;
        const id = `${key}\n${field}`;
        const seen = rows.get(id);
        rows.set(id, [this.prefix + key, field, (seen?.[2] ?? 0) + amount, now + ttlMs]);
      }
    }
    return rows.size === 0 ? { sql: "", params: [] } : { sql: ADD(rows.size), params: [...[...rows.values()].flat(), now] };
  }
}
