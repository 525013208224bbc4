/** SQLite's tallies: unbounded additions wait in memory and are written together; bounded ones are written at once. */
import Database from "better-sqlite3";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStore } from "../../../src/infra/store/index.js";
import { BackendGuard } from "../../../src/infra/store/backend-guard.js";
import { SqliteDb } from "../../../src/infra/store/sqlite-db.js";
import { createTallyTable, SqliteTallies } from "../../../src/infra/store/sqlite-tallies.js";
import { TallyWrites } from "../../../src/infra/store/sqlite-tally-writes.js";
import { DEFAULT_SQLITE_FILE } from "../../../src/infra/store/store-url.js";
import { captureLog } from "../../helpers/captured-log.js";
import { ManualClock } from "../../helpers/clock.js";
import { queryFile } from "../../helpers/sqlite-file.js";
import { recordSql, type SqlRecording } from "../../helpers/sql-statements.js";
import { eventually } from "../../helpers/wait.js";

const WRITE = "INSERT INTO tallies";
const DAY = 86_400_000;
const cleanups: Array<() => Promise<void> | void> = [];
let sql: SqlRecording | undefined;
afterEach(async () => {
  sql?.stop();
  sql = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-tallies-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The tallies on a connection whose statements give up on a lock after 50 ms, and a second connection to hold it. */
async function tallies() {
  const file = join(await tempDir(), "tallies.db");
  const db = await SqliteDb.open(file, { busyDeadlineMs: 50 });
  await db.exec("PRAGMA journal_mode = WAL");
  await createTallyTable(db);
  const clock = new ManualClock(Date.now());
  const { log, logs } = captureLog([]);
  const guard = new BackendGuard([]);
  const writes = new TallyWrites(db, guard, log, clock);
  const other = new Database(file);
  cleanups.push(async () => {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    await db.close();
  });
  return {
    clock,
    logs,
    writes,
    usage: new SqliteTallies(db, guard, "usage", "", writes, clock),
    stored: () => other.prepare("SELECT tally_key AS key, field, sum FROM tallies ORDER BY tally_key, field").all() as Array<{ key: string; field: string; sum: number }>,
    lock: () => other.exec("BEGIN IMMEDIATE"),
    unlock: () => other.exec("COMMIT"),
    failures: () => logs.filter((line) => /could not write tally additions/.test(line.msg)).length,
  };
}

/** Waits for the write under way to have failed: the retry is on the clock again. */
async function failed(t: Awaited<ReturnType<typeof tallies>>): Promise<void> {
  await eventually(() => t.failures() > 0 && t.clock.pendingTimers === 1, "the write to fail and a retry to be set");
}

describe("SQLite tallies: additions waiting in memory", () => {
  it("reads and bounded additions count what waits; bounded additions are written at once, the rest within the window", async () => {
    const dataDir = await tempDir();
    const clock = new ManualClock(Date.now());
    const store = await createStore({ url: null, dataDir, log: captureLog([]).log, clock });
    const fileRows = () => queryFile(join(dataDir, DEFAULT_SQLITE_FILE), "SELECT tally_key AS key, field, sum FROM tallies ORDER BY key, field");
    const usage = store.tallies("usage");
    const bound = [{ key: "k", field: "tokens", limit: 15 }];
    await usage.add([{ key: "k", amounts: { tokens: 10 }, ttlMs: DAY }]);
    await usage.add([{ key: "other", amounts: { tokens: 3 }, ttlMs: DAY }]);
    expect(fileRows()).toEqual([]);
    expect(await usage.read(["k"])).toEqual([{ tokens: 10 }]);
    expect(await usage.addWithin([{ key: "k", amounts: { tokens: 10, calls: 1 }, ttlMs: DAY }], bound)).toEqual({ added: true, sums: [20] });
    // Written before it resolved, with what waited for its fields: another connection sees it at once.
    const second = await createStore({ url: null, dataDir, log: captureLog([]).log });
    expect(await second.tallies("usage").read(["k", "other"])).toEqual([{ tokens: 20, calls: 1 }, {}]);
    await second.close();
    expect(await usage.addWithin([{ key: "k", amounts: { tokens: 10 }, ttlMs: DAY }], bound)).toEqual({ added: false, sums: [20] });

    await usage.add([{ key: "k", amounts: { tokens: 5 }, ttlMs: DAY }]);
    expect(fileRows()).toHaveLength(2);
    clock.advance(999);
    expect(fileRows()).toHaveLength(2);
    clock.advance(1);
    await eventually(() => fileRows().length === 3, "the window's additions written");
    expect(fileRows()).toEqual([
      { key: "switchboard:usage:k", field: "calls", sum: 1 },
      { key: "switchboard:usage:k", field: "tokens", sum: 25 },
      { key: "switchboard:usage:other", field: "tokens", sum: 3 },
    ]);
    expect(await usage.read(["k"])).toEqual([{ tokens: 25, calls: 1 }]);

    await usage.add([{ key: "k", amounts: { tokens: 1 }, ttlMs: DAY }]);
    await store.close();
    expect(fileRows()[1]).toEqual({ key: "switchboard:usage:k", field: "tokens", sum: 26 });
    expect(clock.pendingTimers).toBe(0);
    await expect(usage.add([{ key: "k", amounts: { tokens: 1 }, ttlMs: 60_000 }])).rejects.toThrow(/the store is closed/);
  });

  it("an addition counts the stored sum live when it was made, though that expires before the write; a waiting one expires too", async () => {
    const t = await tallies();
    const wide = [{ key: "k", field: "tokens", limit: 1_000 }];
    await t.usage.addWithin([{ key: "k", amounts: { tokens: 10 }, ttlMs: 1_500 }], wide);
    t.clock.advance(1_000);
    await t.usage.add([{ key: "k", amounts: { tokens: 5 }, ttlMs: 1_500 }]);
    // The stored row's own expiry has passed; the addition waiting to be written made the sum live until later.
    t.clock.advance(700);
    expect(await t.usage.read(["k"])).toEqual([{ tokens: 15 }]);
    t.clock.advance(300);
    expect(t.stored()).toEqual([{ key: "k", field: "tokens", sum: 15 }]);

    await t.usage.add([{ key: "brief", amounts: { tokens: 1 }, ttlMs: 500 }]);
    t.clock.advance(600);
    expect(await t.usage.read(["brief"])).toEqual([{}]);
  });

  it("after writes failed on another connection's lock, the retry writes every sum once, more than one statement's parameters allow", async () => {
    const t = await tallies();
    sql = recordSql();
    t.lock();
    await t.usage.add([{ key: "k", amounts: { tokens: 1 }, ttlMs: DAY }]);
    t.clock.advance(1_000);
    await failed(t);
    const tries = sql.count(WRITE);
    expect(tries).toBeGreaterThan(0);

    // 10,000 sums: four parameters each would be past SQLite's 32,766. Far past 2,000, yet no write while failing.
    const many = Array.from({ length: 5_000 }, (_, i) => ({ key: `k${i}`, amounts: { tokens: 1, calls: 2 }, ttlMs: DAY }));
    await t.usage.add(many);
    expect(sql.count(WRITE)).toBe(tries);
    // The pause grows: one window after the first failure, two after the second.
    t.clock.advance(999);
    expect(sql.count(WRITE)).toBe(tries);
    t.clock.advance(1);
    expect(sql.count(WRITE)).toBeGreaterThan(tries);
    await eventually(() => t.clock.pendingTimers === 1, "the second retry set");
    const second = sql.count(WRITE);
    t.clock.advance(1_999);
    expect(sql.count(WRITE)).toBe(second);
    expect(await t.usage.read(["k", "k4999"])).toEqual([{ tokens: 1 }, { tokens: 1, calls: 2 }]);

    t.unlock();
    t.clock.advance(1);
    await eventually(() => t.stored().length === 10_001, "every waiting sum written");
    expect(t.stored().every(({ field, sum }) => sum === (field === "calls" ? 2 : 1))).toBe(true);
    expect(t.failures()).toBe(1);
    t.clock.advance(60_000);
    expect(await t.usage.read(["k", "k0"])).toEqual([{ tokens: 1 }, { tokens: 1, calls: 2 }]);
    expect(t.stored().filter(({ key }) => key === "k")).toEqual([{ key: "k", field: "tokens", sum: 1 }]);
  });

  it("past 100,000 waiting sums, additions to others are dropped, said once, and counted when writes succeed again", async () => {
    const t = await tallies();
    t.lock();
    await t.usage.add([{ key: "first", amounts: { tokens: 1 }, ttlMs: DAY }]);
    t.clock.advance(1_000);
    await failed(t);
    const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ key: `k${from + i}`, amounts: { tokens: 1 }, ttlMs: DAY }));
    await t.usage.add(rows(0, 100_050));
    await t.usage.add(rows(200_000, 10));
    // Additions to sums already waiting still count.
    await t.usage.add([{ key: "first", amounts: { tokens: 1 }, ttlMs: DAY }]);
    const errors = () => t.logs.filter((line) => line.level === 50);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]!.msg).toMatch(/100000 tally sums wait unwritten/);
    expect(await t.usage.read(["first", "k0", "k100000", "k200000"])).toEqual([{ tokens: 2 }, { tokens: 1 }, {}, {}]);

    t.unlock();
    t.clock.advance(1_000);
    await eventually(() => errors().length === 2, "the drops counted");
    expect(errors()[1]).toMatchObject({ dropped: 61 });
    expect(t.stored()).toHaveLength(100_000);
  });

  it("a close with a retry pending writes what waits and leaves no timer", async () => {
    const t = await tallies();
    sql = recordSql();
    t.lock();
    await t.usage.add([{ key: "k", amounts: { tokens: 4 }, ttlMs: DAY }]);
    t.clock.advance(1_000);
    await failed(t);
    t.unlock();
    await t.writes.close();
    expect(t.stored()).toEqual([{ key: "k", field: "tokens", sum: 4 }]);
    expect(t.clock.pendingTimers).toBe(0);
    const writes = sql.count(WRITE);
    t.clock.advance(60_000);
    expect(sql.count(WRITE)).toBe(writes);
  });
});
