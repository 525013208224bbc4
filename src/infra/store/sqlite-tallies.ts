/**
 * Tallies on SQLite: a row per key and field in a table of their own, with its expiry. Only this process writes the
 * file, so unbounded additions wait in memory for a moment and go out together (sqlite-tally-writes.ts); a bounded
 * addition is atomic as one synchronous step that reads the bounds, adds what waits, and writes the addition.
 */
import type { Clock } from "../../core/clock.js";
import type { Tallies, TallyBound, TallyChange } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireTallies } from "./checks.js";
import type { InLineStatements, SqliteDb } from "./sqlite-db.js";
import { liveSum, TALLY_TABLE as TABLE, type TallyRow } from "./sqlite-tally-rows.js";
import type { TallyWrites } from "./sqlite-tally-writes.js";

export async function createTallyTable(db: SqliteDb): Promise<void> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (tally_key TEXT NOT NULL, field TEXT NOT NULL, sum REAL NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (tally_key, field)) WITHOUT ROWID`,
  );
}

/** Run by the store's sweep: sums past their expiry, which reads already leave out. */
export const SWEEP_TALLIES_SQL = `DELETE FROM ${TABLE} WHERE expires < ?`;

/**
 * The keys as one JSON array: one statement text for any number. Expired rows too: one an addition waiting in
 * memory kept alive counts until that addition's own expiry.
 */
const READ_KEYS = `SELECT tally_key, field, sum, expires FROM ${TABLE} WHERE tally_key IN (SELECT value FROM json_each(?))`;

interface StoredSum {
  tally_key: string;
  field: string;
  sum: number;
  expires: number;
}

export class SqliteTallies implements Tallies {
  /** `prefix`: what the store puts before every key of this namespace's tallies; `writes`: the store's one buffer. */
  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly name: string,
    private readonly prefix: string,
    private readonly writes: TallyWrites,
    private readonly clock: Clock,
  ) {}

  /** Waits in memory with the others (see TallyWrites): resolves at once. */
  async add(changes: readonly TallyChange[]): Promise<void> {
    requireTallies(this.name, changes, []);
    await this.guard.run("tally add", `${this.name}:${changes.map((c) => c.key).join(",")}`, async () => this.writes.add(this.#rows(changes, this.clock.now())));
  }

  /** Written before it resolves, in the same synchronous step as the check: a bound holds what a kill must not lose. */
  async addWithin(changes: readonly TallyChange[], bounds: readonly TallyBound[]): Promise<{ added: boolean; sums: number[] }> {
    requireTallies(this.name, changes, bounds);
    const target = `${this.name}:${changes.map((c) => c.key).join(",")}`;
    return this.guard.run("tally add", target, () =>
      this.db.inLine((db) => {
        const now = this.clock.now();
        const boundKeys = [...new Set(bounds.map((bound) => bound.key))];
        const sums = (read: Array<Record<string, number>>) => bounds.map(({ key, field }) => read[boundKeys.indexOf(key)]![field] ?? 0);
        const read = this.#read(db, boundKeys, now);
        const before = sums(read);
        if (before.some((sum, i) => sum >= bounds[i]!.limit)) return { added: false, sums: before };
        const rows = this.#rows(changes, now);
        this.writes.writeWith(db, rows);
        // The sums after: those read, with this addition, instead of a second read.
        for (const row of rows) {
          const at = boundKeys.indexOf(row.key.slice(this.prefix.length));
          if (at !== -1) read[at]![row.field] = (read[at]![row.field] ?? 0) + row.amount;
        }
        return { added: true, sums: sums(read) };
      }),
    );
  }

  async read(keys: readonly string[]): Promise<Array<Record<string, number>>> {
    return this.guard.run("tally read", `${this.name}:${keys.join(",")}`, () => this.db.inLine((db) => this.#read(db, keys, this.clock.now())));
  }

  /** Each key's live sums, in one statement, with the additions waiting to be written. */
  #read(db: InLineStatements, keys: readonly string[], now: number): Array<Record<string, number>> {
    if (keys.length === 0) return [];
    const full = [...new Set(keys.map((key) => this.prefix + key))];
    const stored = new Map(full.map((key) => [key, new Map<string, StoredSum>()]));
    for (const row of db.all<StoredSum>(READ_KEYS, JSON.stringify(full))) stored.get(row.tally_key)!.set(row.field, row);
    const byKey = new Map<string, Record<string, number>>();
    for (const [key, rows] of stored) {
      const waiting = this.writes.waitingOf(key);
      const sums: Record<string, number> = {};
      for (const field of new Set([...rows.keys(), ...(waiting?.keys() ?? [])])) {
        const sum = liveSum(rows.get(field), waiting?.get(field), now);
        if (sum !== undefined) sums[field] = sum;
      }
      byKey.set(key, sums);
    }
    return keys.map((key) => byKey.get(this.prefix + key)!);
  }

  /** Every change's amounts as rows (a field named twice is added twice, a zero left out). */
  #rows(changes: readonly TallyChange[], now: number): TallyRow[] {
    const rows: TallyRow[] = [];
    for (const { key, amounts, ttlMs } of changes) {
      for (const [field, amount] of Object.entries(amounts)) {
        // Most of a model call's fields are zero (no cached input, no prices set): rows that add nothing cost SQLite
        // the same as the others.
        if (amount !== 0) rows.push({ key: this.prefix + key, field, amount, at: now, expires: now + ttlMs });
      }
    }
    return rows;
  }
}
