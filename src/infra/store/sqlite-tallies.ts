/**
 * Tallies on SQLite: a row per key and field in a table of their own, with its expiry. Only this process writes the
 * file, so a bounded addition is atomic as one transaction that reads the bounds and adds.
 */
import type { Tallies, TallyBound, TallyChange } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireTallies } from "./checks.js";
import type { AtomicStatements, SqliteDb } from "./sqlite-db.js";

const TABLE = "tallies";

export async function createTallyTable(db: SqliteDb): Promise<void> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (tally_key TEXT NOT NULL, field TEXT NOT NULL, sum REAL NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (tally_key, field)) WITHOUT ROWID`,
  );
}

/** Run by the store's sweep: sums past their expiry, which reads already leave out. */
export const SWEEP_TALLIES_SQL = `DELETE FROM ${TABLE} WHERE expires < ?`;

/** An expired sum starts again from the amount. */
const ADD = `INSERT INTO ${TABLE} (tally_key, field, sum, expires) VALUES (?, ?, ?, ?)
  ON CONFLICT (tally_key, field) DO UPDATE SET sum = CASE WHEN expires < ? THEN excluded.sum ELSE sum + excluded.sum END, expires = excluded.expires`;
const READ_KEY = `SELECT field, sum FROM ${TABLE} WHERE tally_key = ? AND expires >= ?`;
const READ_FIELD = `SELECT sum FROM ${TABLE} WHERE tally_key = ? AND field = ? AND expires >= ?`;

export class SqliteTallies implements Tallies {
  /** `prefix`: what the store puts before every key of this namespace's tallies. */
  constructor(
    private readonly db: SqliteDb,
    private readonly guard: BackendGuard,
    private readonly name: string,
    private readonly prefix: string,
  ) {}

  async add(changes: readonly TallyChange[]): Promise<void> {
    await this.addWithin(changes, []);
  }

  async addWithin(changes: readonly TallyChange[], bounds: readonly TallyBound[]): Promise<{ added: boolean; sums: number[] }> {
    requireTallies(this.name, changes, bounds);
    const target = `${this.name}:${changes.map((c) => c.key).join(",")}`;
    return this.guard.run("tally add", target, () =>
      this.db.atomically((db) => {
        const now = Date.now();
        const sums = () => bounds.map(({ key, field }) => db.all<{ sum: number }>(READ_FIELD, this.prefix + key, field, now)[0]?.sum ?? 0);
        const before = sums();
        if (before.some((sum, i) => sum >= bounds[i]!.limit)) return { added: false, sums: before };
        for (const change of changes) this.#apply(db, change, now);
        return { added: true, sums: sums() };
      }),
    );
  }

  async read(keys: readonly string[]): Promise<Array<Record<string, number>>> {
    return this.guard.run("tally read", `${this.name}:${keys.join(",")}`, () =>
      this.db.atomically((db) => {
        const now = Date.now();
        return keys.map((key) => Object.fromEntries(db.all<{ field: string; sum: number }>(READ_KEY, this.prefix + key, now).map((row) => [row.field, row.sum])));
      }),
    );
  }

  #apply(db: AtomicStatements, { key, amounts, ttlMs }: TallyChange, now: number): void {
    for (const [field, amount] of Object.entries(amounts)) db.run(ADD, this.prefix + key, field, amount, now + ttlMs, now);
  }
}
