/**
 * The embedded backend: one SQLite file, one connection (better-sqlite3, statements prepared once), for a single
 * gateway process. Rows keep the format Keyv gave them (sqlite-namespace.ts). SQLite has no TTL of its own: each JSON row
 * holds its `expires` (an entry set's row its `expires` column), checked on read, so entries never read again
 * (dedup markers) would stay forever. A sweep at open and every few minutes deletes them.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { systemClock, type Clock } from "../../core/clock.js";
import type { Logger } from "../log.js";
import type { Store } from "./types.js";
import { BackendGuard } from "./backend-guard.js";
import { StoreError } from "./errors.js";
import { KeyvStore } from "./keyv-store.js";
import { LocalBus } from "./local-bus.js";
import { LocalCoordinator } from "./local-coordinator.js";
import { SqliteDb } from "./sqlite-db.js";
import { createListTable, ListEnds, SqliteLists } from "./sqlite-lists.js";
import { CREATE_KV_TABLE, KV_TABLE, SET_ROW, SqliteNamespace } from "./sqlite-namespace.js";
import { createSetTable, REMOVE_ENTRY, SqliteSets, SWEEP_SETS_SQL } from "./sqlite-sets.js";
import { createTallyTable, SqliteTallies, SWEEP_TALLIES_SQL } from "./sqlite-tallies.js";
import { TallyWrites } from "./sqlite-tally-writes.js";
import type { PreparedWrite } from "./store-write.js";
import { SqliteBatches } from "./sqlite-batches.js";

const SWEEP_INTERVAL_MS = 10 * 60_000;
// CASE guarantees json_valid runs first, so a malformed row is skipped instead of failing the whole sweep.
const SWEEP_SQL = `DELETE FROM ${KV_TABLE}
  WHERE CASE WHEN json_valid(value) THEN json_extract(value, '$.expires') END < ?`;

/** `clock` times the tallies: their expiry, and when the additions waiting in memory are written. */
export async function openSqliteStore(file: string, keyPrefix: string, log: Logger, clock: Clock = systemClock): Promise<Store> {
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoreError("open", file, `cannot create the directory ${dir}: ${reason}`, { cause: err });
  }
  const guard = new BackendGuard([]);
  const db = await guard.run("open", file, () => SqliteDb.open(file));
  try {
    // WAL with synchronous=NORMAL: a crash of the process loses nothing; a power cut may lose the last writes.
    await guard.run("open", file, async () => {
      await db.exec("PRAGMA journal_mode = WAL");
      await db.exec("PRAGMA synchronous = NORMAL");
      // SQLite's own default page cache (2 MB): better-sqlite3 builds with 16 MB, which showed as ~40 MiB more RSS
      // after 10,000 users for no measurable speed (the hot rows are few and small).
      await db.exec("PRAGMA cache_size = -2000");
      await db.exec(CREATE_KV_TABLE);
      await createListTable(db);
      await createSetTable(db);
      await createTallyTable(db);
    });
  } catch (err) {
    // The open error is the one to report; a failure to close what never opened adds nothing.
    await db.close().catch(() => undefined);
    throw err;
  }

  const tallyWrites = new TallyWrites(db, guard, log, clock);
  const sweep = async (): Promise<void> => {
    await guard.run("sweep expired", file, async () => {
      await db.run(SWEEP_SQL, Date.now());
      await db.run(SWEEP_SETS_SQL, Date.now());
      await db.run(SWEEP_TALLIES_SQL, tallyWrites.sweepBefore(clock.now()));
    });
  };
  await sweep();
  let sweeping: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweep().catch((err: unknown) => log.warn({ err }, "sweeping expired store entries failed; retrying later"));
  }, SWEEP_INTERVAL_MS).unref();

  const listEnds = new ListEnds();
  const batches = new SqliteBatches(db, KV_TABLE);
  log.info({ backend: "sqlite", file }, "store opened");
  return new KeyvStore({
    backend: "sqlite",
    guard,
    coordinator: new LocalCoordinator(new SqliteNamespace<1>(db, batches, guard, "once", keyPrefix)),
    bus: new LocalBus(),
    namespace: (name) => new SqliteNamespace(db, batches, guard, name, keyPrefix),
    lists: (name) => new SqliteLists(db, guard, name, keyPrefix, listEnds),
    sets: (name) => new SqliteSets(db, guard, name, `${keyPrefix}${name}:`),
    tallies: (name) => new SqliteTallies(db, guard, name, `${keyPrefix}${name}:`, tallyWrites, clock),
    write: async ({ sets, removals }: PreparedWrite) => {
      const rows = sets.map(({ namespace, key, text }) => ({ sql: SET_ROW, params: [`${keyPrefix}${namespace}:${key}`, text] }));
      // A batched write of the same key asked for earlier lands first, so it cannot overwrite this one afterwards;
      // otherwise nothing waits (this write is the one a crash must not find undone).
      if (rows.some(({ params }) => batches.writing(params[0]!))) await batches.settled();
      await db.transaction([
        ...rows,
        ...removals.map(({ namespace, key, id }) => ({ sql: REMOVE_ENTRY, params: [`${keyPrefix}${namespace}:${key}`, id] })),
      ]);
    },
    roundTrip: () => db.all(`SELECT 1`),
    shutdown: async () => {
      clearInterval(timer);
      await sweeping;
      await tallyWrites.close().catch((err: unknown) => log.error({ err }, "could not write the last tally additions before closing; they are lost"));
      await batches.settled();
      await db.close();
    },
  });
}
