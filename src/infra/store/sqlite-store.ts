/**
 * The embedded backend: one SQLite file, one connection, for a single gateway process.
 * @keyv/sqlite has no TTL of its own: keyv stores `expires` in each JSON row and checks it on read, so
 * entries never read again (dedup markers) would stay forever. A sweep at open and every few minutes
 * deletes them.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { KeyvSqlite } from "@keyv/sqlite";
import type { Logger } from "../log.js";
import type { Store } from "./types.js";
import { BackendGuard } from "./backend-guard.js";
import { StoreError } from "./errors.js";
import { jsonKeyv, KeyvNamespace } from "./keyv-namespace.js";
import { KeyvStore } from "./keyv-store.js";
import { LocalBus } from "./local-bus.js";
import { LocalCoordinator } from "./local-coordinator.js";
import { createListTable, SqliteLists } from "./sqlite-lists.js";

const TABLE = "keyv";
const SWEEP_INTERVAL_MS = 10 * 60_000;
// CASE guarantees json_valid runs first, so a malformed row is skipped instead of failing the whole sweep.
const SWEEP_SQL = `DELETE FROM ${TABLE}
  WHERE CASE WHEN json_valid(value) THEN json_extract(value, '$.expires') END < ?`;

export async function openSqliteStore(file: string, keyPrefix: string, log: Logger): Promise<Store> {
  const dir = dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoreError("open", file, `cannot create the directory ${dir}: ${reason}`, { cause: err });
  }
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, table: TABLE });
  const keyv = jsonKeyv(adapter);
  const guard = new BackendGuard([]);
  try {
    // WAL with synchronous=NORMAL: a crash of the process loses nothing; a power cut may lose the last writes.
    await guard.run("open", file, async () => {
      await adapter.query("PRAGMA journal_mode = WAL");
      await adapter.query("PRAGMA synchronous = NORMAL");
      await createListTable(adapter);
    });
  } catch (err) {
    // The open error is the one to report; a failure to close what never opened adds nothing.
    await adapter.disconnect().catch(() => undefined);
    throw err;
  }

  const sweep = async (): Promise<void> => {
    await guard.run("sweep expired", file, () => adapter.query(SWEEP_SQL, Date.now()));
  };
  await sweep();
  let sweeping: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweep().catch((err: unknown) => log.warn({ err }, "sweeping expired store entries failed; retrying later"));
  }, SWEEP_INTERVAL_MS).unref();

  log.info({ backend: "sqlite", file }, "store opened");
  return new KeyvStore({
    backend: "sqlite",
    keyv,
    guard,
    keyPrefix,
    coordinator: new LocalCoordinator(new KeyvNamespace<1>(keyv, guard, "once", keyPrefix)),
    bus: new LocalBus(),
    lists: (name) => new SqliteLists(adapter, guard, name, keyPrefix),
    roundTrip: () => keyv.get(`${keyPrefix}ping`),
    shutdown: async () => {
      clearInterval(timer);
      await sweeping;
      await adapter.disconnect();
    },
  });
}
