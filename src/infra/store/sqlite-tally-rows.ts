/**
 * Tally rows on SQLite: additions merged per key and field, and the one statement that writes any number of them.
 * The rows go to SQLite as one JSON parameter, so the statement has one text (prepared once) and no limit on rows
 * (SQLite allows 32,766 parameters a statement).
 */
export const TALLY_TABLE = "tallies";

/** One field's addition: the amount, when it was made, and the key's expiry after it (a later addition's replaces it). */
export interface TallyRow {
  /** The key as stored (with the store's prefix). */
  key: string;
  field: string;
  amount: number;
  at: number;
  expires: number;
}

/**
 * Additions to one field, merged: their sum, the time of the first (the stored sum counts only if it was live then,
 * as it would have been had that addition been written at once), and the expiry after the last.
 */
export interface MergedSum {
  sum: number;
  since: number;
  expires: number;
}

/**
 * One JSON array of [key, field, sum, since, expires], each key and field once: the stored sum is added if it was
 * live at `since`, else the sum starts again. The join reads the rows as they were before the statement.
 */
export const WRITE_SUMS = `INSERT INTO ${TALLY_TABLE} (tally_key, field, sum, expires)
  SELECT r.value ->> 0, r.value ->> 1, (r.value ->> 2) + CASE WHEN t.expires >= r.value ->> 3 THEN t.sum ELSE 0 END, r.value ->> 4
  FROM json_each(?) AS r LEFT JOIN ${TALLY_TABLE} AS t ON t.tally_key = r.value ->> 0 AND t.field = r.value ->> 1
  WHERE true
  ON CONFLICT (tally_key, field) DO UPDATE SET sum = excluded.sum, expires = excluded.expires`;

/** The value of a field: its merged additions (when any wait) over the stored row, at `now`; undefined when none is live. */
export function liveSum(stored: { sum: number; expires: number } | undefined, waiting: MergedSum | undefined, now: number): number | undefined {
  if (!waiting) return stored && stored.expires >= now ? stored.sum : undefined;
  if (waiting.expires < now) return undefined;
  return waiting.sum + (stored && stored.expires >= waiting.since ? stored.sum : 0);
}

export class MergedSums {
  #byKey = new Map<string, Map<string, MergedSum>>();
  #size = 0;

  /** How many key and field pairs. */
  get size(): number {
    return this.#size;
  }

  /** Adds the row, unless it names a field not held yet and `limit` are held: then false. */
  add(row: TallyRow, limit = Infinity): boolean {
    let fields = this.#byKey.get(row.key);
    const merged = fields?.get(row.field);
    if (merged && merged.expires >= row.at) {
      merged.sum += row.amount;
      merged.expires = Math.max(merged.expires, row.expires);
      return true;
    }
    if (!merged && this.#size >= limit) return false;
    if (!fields) this.#byKey.set(row.key, (fields = new Map()));
    // A sum past its expiry when added to starts again, as a stored one would.
    if (!merged) this.#size += 1;
    fields.set(row.field, { sum: row.amount, since: row.at, expires: row.expires });
    return true;
  }

  /** Takes over `merged` as the field's additions so far. */
  put(key: string, field: string, merged: MergedSum): void {
    let fields = this.#byKey.get(key);
    if (!fields) this.#byKey.set(key, (fields = new Map()));
    if (!fields.has(field)) this.#size += 1;
    fields.set(field, { ...merged });
  }

  of(key: string): ReadonlyMap<string, MergedSum> | undefined {
    return this.#byKey.get(key);
  }

  delete(key: string, field: string): void {
    const fields = this.#byKey.get(key);
    if (!fields?.delete(field)) return;
    this.#size -= 1;
    if (fields.size === 0) this.#byKey.delete(key);
  }

  /** The rows as WRITE_SUMS takes them. */
  json(): string {
    const rows: Array<[string, string, number, number, number]> = [];
    for (const [key, fields] of this.#byKey) for (const [field, { sum, since, expires }] of fields) rows.push([key, field, sum, since, expires]);
    return JSON.stringify(rows);
  }

  /** The earliest `since`, or undefined when none is held. */
  earliest(): number | undefined {
    let earliest: number | undefined;
    for (const fields of this.#byKey.values()) for (const { since } of fields.values()) earliest = Math.min(earliest ?? since, since);
    return earliest;
  }

  *fields(): Iterable<[string, string]> {
    for (const [key, fields] of this.#byKey) for (const field of fields.keys()) yield [key, field];
  }
}
