import Database from "better-sqlite3";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteDb } from "../../../src/infra/store/sqlite-db.js";

/** What became of a promise so far, read without awaiting it. */
function outcomeOf(promise: Promise<unknown>): () => "pending" | "done" | "failed" {
  let outcome: "pending" | "done" | "failed" = "pending";
  promise.then(
    () => (outcome = "done"),
    () => (outcome = "failed"),
  );
  return () => outcome;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("SqliteDb while another connection holds the write lock (the CLI next to a gateway)", () => {
  let dir: string;
  let other: Database.Database;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-busy-"));
    other = new Database(join(dir, "state.db"));
    other.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)");
  });

  afterEach(async () => {
    if (other.inTransaction) other.exec("ROLLBACK");
    other.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** `waiting` is still pending once the loop has turned; then the other connection lets the lock go. */
  async function stillPendingThenCommit(waiting: Promise<unknown>): Promise<void> {
    const outcome = outcomeOf(waiting);
    await nextTurn();
    expect(outcome()).toBe("pending");
    other.exec("COMMIT");
  }

  it("lets the event loop run while it waits, and writes once the lock is released", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"));
    other.exec("BEGIN IMMEDIATE");
    const write = db.run("INSERT INTO t VALUES (1)");
    // The loop turns while the write waits: blocking in SQLite's own busy wait, the lock could not be released
    // here, and the write would fail with SQLITE_BUSY after its timeout.
    await stillPendingThenCommit(write);
    await expect(write).resolves.toBe(1);
    expect(other.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 1 });
    await db.close();
  });

  it("fails with SQLITE_BUSY once its deadline has passed, the loop running all along", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"), { busyDeadlineMs: 100 });
    other.exec("BEGIN IMMEDIATE");
    const write = db.run("INSERT INTO t VALUES (1)");
    const outcome = outcomeOf(write);
    let turns = 0;
    while (outcome() === "pending") {
      await nextTurn();
      turns += 1;
    }
    await expect(write).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_BUSY/) });
    expect(turns).toBeGreaterThan(1);
    await db.close();
  });

  it("keeps the order statements were asked in: one asked once the lock is free does not pass one still waiting", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"));
    other.exec("BEGIN IMMEDIATE");
    const first = db.run("INSERT INTO t VALUES (1)");
    await nextTurn();
    other.exec("COMMIT");
    // The file is free now: run at once, this would be written before the first, still waiting for its next try.
    const second = db.run("INSERT INTO t VALUES (2)");
    const read = db.all<{ x: number }>("SELECT x FROM t ORDER BY rowid");
    await expect(Promise.all([first, second])).resolves.toEqual([1, 1]);
    await expect(read).resolves.toEqual([{ x: 1 }, { x: 2 }]);
    await db.close();
  });

  it("closes once the statements waiting for the lock have run", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"));
    other.exec("BEGIN IMMEDIATE");
    const write = db.run("INSERT INTO t VALUES (1)");
    const closing = db.close();
    await stillPendingThenCommit(closing);
    await expect(write).resolves.toBe(1);
    await closing;
    expect(other.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 1 });
  });

  it("fails a long line past its deadline together, without a blocking try for each", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"), { busyDeadlineMs: 100 });
    other.exec("BEGIN IMMEDIATE");
    // The longest gap between a 5 ms ticker's runs: how long the loop was held.
    let last = performance.now();
    let longest = 0;
    let ticked = (): void => {};
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      ticked();
    }, 5);
    const writes = Array.from({ length: 400 }, (_, i) => db.run("INSERT INTO t VALUES (?)", i));
    const outcomes = await Promise.allSettled(writes);
    // The ticker's next run measures a hold that ended just now.
    await new Promise<void>((resolve) => (ticked = resolve));
    clearInterval(ticker);
    expect(outcomes.every((o) => o.status === "rejected" && /^SQLITE_BUSY/.test(String((o.reason as { code?: unknown }).code)))).toBe(true);
    // A try each (SQLite waits up to 5 ms in it) would hold the loop for about two seconds; the bound is generous.
    expect(longest).toBeLessThan(500);
    await db.close();
  });

  it("closes after a statement a waiter's caller asks for next, when that one finds the lock taken again", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"));
    other.exec("BEGIN IMMEDIATE");
    let next: Promise<number> | undefined;
    const first = db.run("INSERT INTO t VALUES (1)").then((changed) => {
      other.exec("BEGIN IMMEDIATE");
      next = db.run("INSERT INTO t VALUES (2)");
      return changed;
    });
    const closing = db.close();
    await nextTurn();
    other.exec("COMMIT");
    await expect(first).resolves.toBe(1);
    await stillPendingThenCommit(closing);
    await expect(next).resolves.toBe(1);
    await closing;
    expect(other.prepare("SELECT x FROM t ORDER BY rowid").all()).toEqual([{ x: 1 }, { x: 2 }]);
  });

  it("passes other errors on at once", async () => {
    const db = await SqliteDb.open(join(dir, "state.db"));
    await expect(db.run("INSERT INTO missing VALUES (1)")).rejects.toThrow(/no such table/);
    await db.close();
  });
});
