/** The task index as a log: the old layout (shards) converted on first start, and the log rewritten when stale. */
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/infra/store/index.js";
import { IndexLog } from "../../src/scheduler/index-log.js";
import type { TaskRecord } from "../../src/scheduler/types.js";
import { ZonePreferences } from "../../src/scheduler/zone-preferences.js";
import { ALICE, BOB, makeScheduler, ManualClock, RecordingChannel, reminder, sqliteStore } from "./helpers.js";

const NOW = Date.parse("2026-03-28T10:00:00Z");
const HOUR = 3_600_000;
const OPERATOR = { kind: "operator" } as const;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshStore() {
  const db = await sqliteStore();
  const stores: Store[] = [db.store];
  cleanups.push(async () => {
    for (const s of stores) await s.close();
    await db.cleanup();
  });
  const reopen = async (): Promise<Store> => {
    await stores.at(-1)!.close();
    const store = await db.reopen();
    stores.push(store);
    return store;
  };
  return { store: db.store, reopen };
}

/** Task records as this release writes them, made on a scratch store. */
async function records(): Promise<TaskRecord[]> {
  const { store } = await freshStore();
  const scratch = makeScheduler({ store, clock: new ManualClock(NOW) });
  const once = await scratch.create(reminder({ text: "once", when: { in: "1h" } }), ALICE);
  const daily = await scratch.create(reminder({ text: "daily", when: { cron: "0 9 * * *" }, creator: { channel: "web", userId: "bob" } }), BOB);
  return [once.task, daily.task];
}

describe("the old index layout", () => {
  it("is converted on first start: tasks armed, listed and run once; the old keys are gone", async () => {
    const [once, daily] = await records();
    const { store, reopen } = await freshStore();
    const ns = store.namespace<unknown>("tasks");
    // As releases before the log wrote them: records, shards of id -> [due, cron], creator lists, a revision.
    await ns.set(`task:${once!.id}`, once);
    await ns.set(`task:${daily!.id}`, daily);
    await ns.set("index:7", { [once!.id]: [once!.nextRunAt, null], gone1234: [NOW + HOUR, null] });
    await ns.set("index:1023", { [daily!.id]: [daily!.nextRunAt, "UTC 0 9 * * *"] });
    await ns.set("creator:web:alice", [once!.id]);
    await ns.set("creator:web:bob", [daily!.id]);
    await ns.set("revision", "old");

    const clock = new ManualClock(NOW);
    const channel = new RecordingChannel();
    const scheduler = makeScheduler({ store, clock, channel });
    await scheduler.start();
    // The entry whose record is gone is dropped, not armed.
    expect(scheduler.armed).toEqual({ due: 1, cron: 1 });
    expect((await scheduler.list(ALICE)).map((t) => t.id)).toEqual([once!.id]);
    expect((await scheduler.list(BOB)).map((t) => t.id)).toEqual([daily!.id]);
    for (const key of ["index:7", "index:1023", "creator:web:alice", "creator:web:bob", "revision"]) expect(await ns.get(key)).toBeUndefined();

    clock.advance(HOUR);
    await scheduler.idle();
    expect(channel.texts()).toEqual(["once"]);
    await scheduler.stop(0);

    // A restart loads the converted index: the reminder that ran is not armed again, the daily one is.
    const again = makeScheduler({ store: await reopen(), clock, channel });
    await again.start();
    expect(again.armed).toEqual({ due: 0, cron: 1 });
    expect((await again.get(once!.id, OPERATOR)).status).toBe("done");
    await again.stop(0);
  });
});

describe("the index log", () => {
  it("is rewritten when mostly stale, and another reader follows it to the new generation", async () => {
    const { store } = await freshStore();
    const writer = new IndexLog(store, 10);
    const reader = new IndexLog(store, 10);
    const entry = (due: number, creator = "web:alice") => ({ due, cron: null, creator });
    for (let i = 0; i < 30; i++) await writer.append(`t${i}`, entry(NOW + i));
    await reader.refresh();
    expect(reader.entries().size).toBe(30);
    const before = reader.revision;

    for (let i = 0; i < 25; i++) await writer.append(`t${i}`, null);
    await writer.append("t29", entry(NOW + HOUR, "web:bob"));
    await writer.refresh();
    // Far more items than live entries: rewritten as the live ones, under a later generation.
    expect(writer.revision).not.toMatch(/^1:/);
    await reader.refresh();
    expect(reader.revision).not.toBe(before);
    expect([...reader.entries().keys()].sort()).toEqual(["t25", "t26", "t27", "t28", "t29"]);
    expect(reader.entries().get("t29")).toEqual(entry(NOW + HOUR, "web:bob"));
    expect([...reader.idsOf("web:alice")].sort()).toEqual(["t25", "t26", "t27", "t28"]);
    expect([...reader.idsOf("web:bob")]).toEqual(["t29"]);

    // Appends after the rewrite reach the reader as a tail, not a reload.
    await writer.append("t30", entry(NOW));
    await reader.refresh();
    expect(reader.entries().has("t30")).toBe(true);
  });
});

describe("cached time zones", () => {
  it("a change made through one instance is seen by another on the same store at once", async () => {
    const { store } = await freshStore();
    const [one, two] = [new ZonePreferences(store, "UTC"), new ZonePreferences(store, "UTC")];
    const scope = { channel: "web" as const, chatId: "c1", userId: "alice" };
    expect(await two.resolve(scope)).toEqual({ zone: "UTC", source: "default" }); // cached as "none"
    await one.setForUser(scope, "Europe/Berlin");
    await Promise.resolve(); // the bus delivers after the publisher's turn
    expect(await two.resolve(scope)).toEqual({ zone: "Europe/Berlin", source: "user" });
    await one.clearForUser(scope);
    await one.setForChat(scope, "Asia/Shanghai");
    await Promise.resolve();
    expect(await two.resolve(scope)).toEqual({ zone: "Asia/Shanghai", source: "chat" });
  });
});
