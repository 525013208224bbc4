/**
 * The behaviour every Store backend must have, run by store.test.ts (SQLite) and
 * store.redis.test.ts (Redis) against real backends.
 */
import { Writable } from "node:stream";
import { afterEach, expect, it } from "vitest";
import { createLogger, type Logger } from "../../../src/infra/log.js";
import { CachedNamespace } from "../../../src/infra/store/cached-namespace.js";
import { DurableList } from "../../../src/infra/store/durable-list.js";
import { LockTimeoutError, StoreError, type Coordinator, type Store, type Ticket } from "../../../src/infra/store/index.js";
import { eventually } from "../../helpers/wait.js";

export interface StoreFixture {
  /** Opens a store over this fixture's data; a second call opens the same data again, as after a restart. */
  open(): Promise<Store>;
}

/** A logger whose JSON lines are kept in `lines`. */
export function captureLog(secrets: readonly string[] = []): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ level: "debug", secrets, destination }), lines };
}

/** Polls `check` until it holds, failing after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  await eventually(check, what, timeoutMs);
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Takes `key` and keeps it until release(); resolves once the lock is held. `finished` is withLock's outcome. */
export async function holdLock(
  coordinator: Coordinator,
  key: string,
  opts?: { leaseMs?: number },
): Promise<{ release: () => void; finished: Promise<string> }> {
  const gate = deferred();
  const entered = deferred();
  const finished = coordinator.withLock(
    key,
    async () => {
      entered.resolve();
      await gate.promise;
      return "finished";
    },
    opts,
  );
  await entered.promise;
  return { release: gate.resolve, finished };
}

/**
 * Runs `body` under withLock `times` times at once, each a read-increment-write of one counter,
 * and reports the final count and the most holders ever seen inside the lock at once.
 */
export async function racingIncrements(stores: Store[], times: number): Promise<{ count: number; maxInside: number }> {
  let inside = 0;
  let maxInside = 0;
  await Promise.all(
    Array.from({ length: times }, (_, i) => {
      const store = stores[i % stores.length]!;
      return store.coordinator.withLock("counter", async () => {
        inside += 1;
        maxInside = Math.max(maxInside, inside);
        const ns = store.namespace<number>("meta");
        const current = (await ns.get("counter")) ?? 0;
        await ns.set("counter", current + 1);
        inside -= 1;
      });
    }),
  );
  const count = (await stores[0]!.namespace<number>("meta").get("counter")) ?? 0;
  return { count, maxInside };
}

export function storeContract(newFixture: () => Promise<StoreFixture>): void {
  const opened: Store[] = [];
  let fixture: StoreFixture | undefined;
  const open = async (): Promise<Store> => {
    fixture ??= await newFixture();
    const store = await fixture.open();
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    fixture = undefined;
  });

  it("answers ping", async () => {
    const store = await open();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it("keeps namespaces apart", async () => {
    const store = await open();
    const sessions = store.namespace<{ who: string }>("sessions");
    const dedup = store.namespace<{ who: string }>("dedup");
    await sessions.set("k", { who: "sessions" });
    expect(await dedup.get("k")).toBeUndefined();
    await dedup.set("k", { who: "dedup" });
    expect(await sessions.get("k")).toEqual({ who: "sessions" });
    expect(await dedup.delete("k")).toBe(true);
    expect(await dedup.delete("k")).toBe(false);
    expect(await sessions.get("k")).toEqual({ who: "sessions" });
  });

  it("stores plain JSON: nested values round-trip, a Date comes back as its ISO string", async () => {
    const ns = (await open()).namespace<unknown>("tasks");
    const value = { text: ":colon first", list: [1, "two", null, { deep: true }], n: 1.5 };
    await ns.set("v", value);
    expect(await ns.get("v")).toEqual(value);
    const when = new Date("2025-01-02T03:04:05.000Z");
    await ns.set("d", { when });
    expect(await ns.get("d")).toEqual({ when: "2025-01-02T03:04:05.000Z" });
  });

  it("setMany stores every entry, each with its own TTL, and replaces existing ones", async () => {
    const ns = (await open()).namespace<{ n: number }>("tasks");
    await ns.set("a", { n: 0 });
    const entries = Array.from({ length: 450 }, (_, i) => ({ key: String.fromCharCode(97 + (i % 26)) + i, value: { n: i } }));
    await ns.setMany([{ key: "a", value: { n: 1 } }, { key: "short", value: { n: 2 }, ttlMs: 150 }, ...entries]);
    expect(await ns.get("a")).toEqual({ n: 1 });
    expect(await ns.get("a0")).toEqual({ n: 0 });
    expect(await ns.get("h449")).toEqual({ n: 449 });
    await until("the short entry to expire", async () => (await ns.get("short")) === undefined);
    expect(await ns.get("a")).toEqual({ n: 1 });
    await expect(ns.setMany([{ key: "", value: { n: 3 } }])).rejects.toThrow(/key/);
  });

  it("expires entries after their TTL and keeps the others", async () => {
    const ns = (await open()).namespace<string>("receipts");
    await ns.set("short", "x", 150);
    await ns.set("forever", "y");
    expect(await ns.get("short")).toBe("x");
    await until("the short entry to expire", async () => (await ns.get("short")) === undefined);
    expect(await ns.get("forever")).toBe("y");
  });

  it("keeps values across close and reopen", async () => {
    const first = await open();
    await first.namespace<{ turns: number }>("sessions").set("chat-1", { turns: 3 });
    await first.close();
    const second = await open();
    expect(await second.namespace("sessions").get("chat-1")).toEqual({ turns: 3 });
  });

  it("item lists: writeFrom appends or replaces from a position, read takes a range, lists survive a reopen", async () => {
    const first = await open();
    const lists = first.lists<{ n: number }>("sessions");
    await lists.writeFrom("chat:1", 0, [{ n: 0 }, { n: 1 }]);
    await lists.writeFrom("chat:1", 2, [{ n: 2 }, { n: 3 }]);
    expect(await lists.read("chat:1", 4)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await lists.read("chat:1", 3, 1)).toEqual([{ n: 1 }, { n: 2 }]);
    // A writer that crashed before recording the length left items past it: the next write replaces them.
    await lists.writeFrom("chat:1", 1, [{ n: 10 }]);
    expect(await lists.read("chat:1", 100)).toEqual([{ n: 0 }, { n: 10 }]);
    expect(await first.namespace("sessions").get("chat:1")).toBeUndefined();
    await first.close();
    const second = (await open()).lists<{ n: number }>("sessions");
    expect(await second.read("chat:1", 2)).toEqual([{ n: 0 }, { n: 10 }]);
    await second.delete("chat:1");
    expect(await second.read("chat:1", 2)).toEqual([]);
    await expect(second.writeFrom("", 0, [{ n: 1 }])).rejects.toThrow(/key/);
  });

  it("item lists: push appends without reading and keeps at least the newest `keep`, at most twice as many; tail reads the newest", async () => {
    const first = await open();
    const lists = first.lists<{ n: number }>("sessions");
    for (let n = 0; n < 23; n++) await lists.push("log:1", { n }, 5);
    expect(await lists.tail("log:1", 3)).toEqual([{ n: 20 }, { n: 21 }, { n: 22 }]);
    const kept = await lists.tail("log:1", 100);
    expect(kept.length).toBeGreaterThanOrEqual(5);
    expect(kept.length).toBeLessThanOrEqual(10);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => ({ n: 23 - kept.length + i })));
    expect(await lists.tail("log:2", 3)).toEqual([]);
    await first.close();
    const second = (await open()).lists<{ n: number }>("sessions");
    await second.push("log:1", { n: 23 }, 5);
    expect(await second.tail("log:1", 2)).toEqual([{ n: 22 }, { n: 23 }]);
    await second.delete("log:1");
    expect(await second.tail("log:1", 5)).toEqual([]);
    await expect(second.push("log:1", { n: 0 }, 0)).rejects.toThrow(/keep/);
  });

  it("item lists: a write that starts where the list ends keeps what is before it; a fresh key starts empty", async () => {
    const store = await open();
    const lists = store.lists<{ n: number }>("sessions");
    await lists.writeFrom("chat:2", 0, [{ n: 0 }, { n: 1 }, { n: 2 }]);
    await lists.writeFrom("chat:2", 1, [{ n: 11 }]);
    await lists.writeFrom("chat:2", 2, [{ n: 12 }]);
    expect(await lists.read("chat:2", 100)).toEqual([{ n: 0 }, { n: 11 }, { n: 12 }]);
    await lists.writeFrom("chat:3#fresh", 0, [{ n: 7 }], { fresh: true });
    expect(await lists.read("chat:3#fresh", 100)).toEqual([{ n: 7 }]);
  });

  it("cached namespace: serves repeated reads from memory; a write in this process is seen at once, by every instance", async () => {
    const store = await open();
    let reads = 0;
    const ns = store.namespace<string>("meta");
    const counted = { ...ns, get: (key: string) => ((reads += 1), ns.get(key)), set: ns.set.bind(ns), setMany: ns.setMany.bind(ns), delete: ns.delete.bind(ns) };
    const options = { topic: "contract.cache", ttlMs: 60_000, max: 10 };
    const a = new CachedNamespace(counted, store.bus, options);
    const b = new CachedNamespace(counted, store.bus, options);
    expect(await a.get("k")).toBeUndefined();
    expect(await b.get("k")).toBeUndefined();
    expect(await a.get("k")).toBeUndefined();
    expect(reads).toBe(2);
    await a.set("k", "one");
    expect(await a.get("k")).toBe("one");
    await until("the other instance dropped its entry", async () => (await b.get("k")) === "one");
    await b.delete("k");
    await until("the writer's own instance dropped its entry", async () => (await a.get("k")) === undefined);
  });

  it("entry sets: one entry per id, in the order added; replace keeps its place; remove; all survive a reopen", async () => {
    const store = await open();
    const sets = store.sets<{ id: string; n: number }>("meta");
    const added = await Promise.all(["a", "b", "a", "c"].map((id, n) => sets.add("inbox:1", id, { id, n })));
    expect(added).toEqual([true, true, false, true]);
    expect(await sets.replace("inbox:1", "a", { id: "a", n: 10 })).toBe(true);
    expect(await sets.replace("inbox:1", "zz", { id: "zz", n: 0 })).toBe(false);
    await sets.remove("inbox:1", "b");
    await sets.remove("inbox:1", "never-added");
    expect(await sets.all("inbox:1")).toEqual([{ id: "a", n: 10 }, { id: "c", n: 3 }]);
    expect(await sets.all("inbox:2")).toEqual([]);
    expect(await store.lists("meta").tail("inbox:1", 10)).toEqual([]);
    expect(await store.namespace("meta").get("inbox:1")).toBeUndefined();
    const reopened = (await open()).sets<{ id: string; n: number }>("meta");
    expect(await reopened.all("inbox:1")).toEqual([{ id: "a", n: 10 }, { id: "c", n: 3 }]);
    expect(await reopened.add("inbox:1", "d", { id: "d", n: 4 })).toBe(true);
    expect((await reopened.all("inbox:1")).map((e) => e.id)).toEqual(["a", "c", "d"]);
  });

  it("entry sets: an entry past its TTL is left out and its id can be added again; the others stay", async () => {
    const sets = (await open()).sets<string>("meta");
    await sets.add("inbox:ttl", "short", "short-lived", 50);
    await sets.add("inbox:ttl", "long", "long-lived", 60_000);
    await sets.add("inbox:ttl", "none", "no ttl");
    expect(await sets.add("inbox:ttl", "short", "again", 50)).toBe(false);
    await until("the short-lived entry expired", async () => !(await sets.all("inbox:ttl")).includes("short-lived"));
    expect(await sets.all("inbox:ttl")).toEqual(["long-lived", "no ttl"]);
    expect(await sets.replace("inbox:ttl", "short", "replaced")).toBe(false);
    expect(await sets.add("inbox:ttl", "short", "back", 60_000)).toBe(true);
    expect(await sets.all("inbox:ttl")).toEqual(["long-lived", "no ttl", "back"]);
    // A short TTL added later neither cuts the set's other entries short nor outlives them all.
    await sets.add("inbox:ttl", "brief", "brief", 30);
    await until("the brief entry expired", async () => !(await sets.all("inbox:ttl")).includes("brief"));
    expect(await sets.all("inbox:ttl")).toEqual(["long-lived", "no ttl", "back"]);
  });

  it("entry sets: 30 concurrent adds of one id, exactly one true; bad arguments fail clearly", async () => {
    const sets = (await open()).sets<number>("meta");
    const results = await Promise.all(Array.from({ length: 30 }, (_, n) => sets.add("inbox:race", "same", n)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await sets.all("inbox:race")).toHaveLength(1);
    await expect(sets.add("inbox:race", "", 1)).rejects.toThrow(/store set meta:inbox:race entry id: the key must be a non-empty string/);
    await expect(sets.add("", "x", 1)).rejects.toThrow(/the key must be a non-empty string/);
    await expect(sets.add("inbox:race", "x", 1, -5)).rejects.toThrow(/ttlMs must be a positive whole number/);
    // A value JSON cannot hold is the store's error, naming the operation and the set.
    await expect(sets.add("inbox:race", "big", 1n as unknown as number)).rejects.toThrow(/store set add meta:inbox:race failed: .*BigInt/);
    expect(await sets.all("inbox:race")).toHaveLength(1);
  });

  it("durable list: answers each change on its own, in order; takes over a list an earlier version kept as one record", async () => {
    const store = await open();
    const list = new DurableList<{ id: string }>(store, "contract-list", (e) => e.id);
    const added = await Promise.all([...["a", "b", "a", "c"].map((id) => list.add({ id })), list.remove("b").then(() => "removed")]);
    expect(added).toEqual([true, true, false, true, "removed"]);
    expect(await list.all()).toEqual([{ id: "a" }, { id: "c" }]);

    await store.namespace<Array<{ id: string }>>("meta").set("old-list", [{ id: "x" }, { id: "y" }]);
    const upgraded = new DurableList<{ id: string }>(await open(), "old-list", (e) => e.id, { ttlMs: 60_000 });
    const other = new DurableList<{ id: string }>(await open(), "old-list", (e) => e.id, { ttlMs: 60_000 });
    expect(await upgraded.add({ id: "z" })).toBe(true);
    expect(await upgraded.all()).toEqual([{ id: "x" }, { id: "y" }, { id: "z" }]);
    await upgraded.remove("y");
    // Another replica of the new version finds the record taken over and does not bring "y" back.
    expect(await other.all()).toEqual([{ id: "x" }, { id: "z" }]);
    expect(await store.namespace("meta").get("old-list")).toBeUndefined();
    await upgraded.remove("x");
    const reopened = new DurableList<{ id: string }>(await open(), "old-list", (e) => e.id);
    expect(await reopened.all()).toEqual([{ id: "z" }]);
  });

  it("write: records and entry removals land together, as set and remove store them, after earlier batched writes", async () => {
    const store = await open();
    const dedup = store.namespace<{ state: string }>("dedup");
    const inbox = store.sets<string>("meta");
    await inbox.add("inbox:w", "1", "first");
    await inbox.add("inbox:w", "2", "second");
    // SQLite batches a namespace's writes of one turn: one asked for before the combined write must land before it.
    const earlier = dedup.set("m1", { state: "handling" });
    if (store.backend !== "sqlite") await earlier;
    await store.write({
      set: [
        { namespace: "dedup", key: "m1", value: { state: "done" }, ttlMs: 60_000 },
        { namespace: "dedup", key: "short", value: { state: "done" }, ttlMs: 40 },
      ],
      remove: [{ namespace: "meta", key: "inbox:w", id: "1" }],
    });
    await earlier;
    expect(await dedup.get("m1")).toEqual({ state: "done" });
    expect(await inbox.all("inbox:w")).toEqual(["second"]);
    await until("the short record expired", async () => (await dedup.get("short")) === undefined);
    const reopened = await open();
    expect(await reopened.namespace("dedup").get("m1")).toEqual({ state: "done" });
    expect(await reopened.sets("meta").all("inbox:w")).toEqual(["second"]);
    // A bad change is refused before anything is written.
    await expect(
      store.write({ set: [{ namespace: "dedup", key: "m2", value: { state: "done" } }], remove: [{ namespace: "meta", key: "inbox:w", id: "" }] }),
    ).rejects.toThrow(/entry id: the key must be a non-empty string/);
    expect(await dedup.get("m2")).toBeUndefined();
  });

  it("setIfAbsent: true once, then false, still false after a restart", async () => {
    const first = await open();
    expect(await first.coordinator.setIfAbsent("msg-1", 60_000)).toBe(true);
    expect(await first.coordinator.setIfAbsent("msg-1", 60_000)).toBe(false);
    expect(await first.coordinator.setIfAbsent("msg-2", 60_000)).toBe(true);
    await first.close();
    const second = await open();
    expect(await second.coordinator.setIfAbsent("msg-1", 60_000)).toBe(false);
  });

  it("setIfAbsent records again once the marker expired", async () => {
    const { coordinator } = await open();
    expect(await coordinator.setIfAbsent("short", 150)).toBe(true);
    await until("the marker to expire", () => coordinator.setIfAbsent("short", 60_000));
    expect(await coordinator.setIfAbsent("short", 60_000)).toBe(false);
  });

  it("setIfAbsent: 50 concurrent calls on one key, exactly one true", async () => {
    const { coordinator } = await open();
    const results = await Promise.all(Array.from({ length: 50 }, () => coordinator.setIfAbsent("same", 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("withLock serializes 20 concurrent increments", async () => {
    const store = await open();
    expect(await racingIncrements([store], 20)).toEqual({ count: 20, maxInside: 1 });
  });

  it("withLock returns fn's value; a throwing fn releases the lock and its error propagates", async () => {
    const { coordinator } = await open();
    expect(await coordinator.withLock("k", async () => 42)).toBe(42);
    const boom = new Error("boom");
    await expect(coordinator.withLock("k", () => Promise.reject(boom))).rejects.toBe(boom);
    expect(await coordinator.withLock("k", async () => "again", { waitMs: 1_000 })).toBe("again");
  });

  it("withLock gives up after waitMs with an error naming the key, and the holder is unaffected", async () => {
    const { coordinator } = await open();
    const holder = await holdLock(coordinator, "busy-chat");
    const waiter = coordinator.withLock("busy-chat", async () => "never", { waitMs: 100 });
    await expect(waiter).rejects.toThrow(LockTimeoutError);
    await expect(waiter).rejects.toThrow(/busy-chat/);
    holder.release();
    expect(await holder.finished).toBe("finished");
    expect(await coordinator.withLock("busy-chat", async () => "free", { waitMs: 1_000 })).toBe("free");
  });

  it("refuses bad arguments with a clear error and keeps what was stored", async () => {
    const store = await open();
    const ns = store.namespace<unknown>("web");
    await ns.set("k", "kept");
    await expect(ns.set("", "x")).rejects.toThrow(/key must be a non-empty string/);
    await expect(ns.get("")).rejects.toThrow(TypeError);
    for (const ttl of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(ns.set("k", "lost", ttl)).rejects.toThrow(/web:k.*ttlMs must be a positive whole number of milliseconds/);
    }
    await expect(ns.set("k", undefined)).rejects.toThrow(/web:k.*undefined/);
    await expect(ns.set("k", { big: 10n })).rejects.toThrow(StoreError);
    await expect(ns.set("k", { big: 10n })).rejects.toThrow(/store set web:k failed/);
    expect(await ns.get("k")).toBe("kept");
    await expect(store.coordinator.setIfAbsent("m", 0)).rejects.toThrow(/ttlMs/);
    await expect(store.coordinator.setIfAbsent("", 1_000)).rejects.toThrow(TypeError);
    await expect(store.coordinator.withLock("k", async () => 1, { waitMs: -1 })).rejects.toThrow(/waitMs/);
    await expect(store.coordinator.withLock("k", async () => 1, { leaseMs: 0 })).rejects.toThrow(/leaseMs/);
  });

  it("leases: one holder at a time; asking again keeps the grant; renew and release only with the current token", async () => {
    const { coordinator } = await open();
    const first = await coordinator.acquireLease("bot:1", "replica-a", 60_000);
    expect(first).toBeTypeOf("number");
    expect(await coordinator.acquireLease("bot:1", "replica-b", 60_000)).toBeNull();
    expect(await coordinator.acquireLease("bot:1", "replica-a", 60_000)).toBe(first);
    expect(await coordinator.leaseHolder("bot:1")).toEqual({ holder: "replica-a", token: first });
    expect(await coordinator.renewLease("bot:1", "replica-a", first!, 60_000)).toBe(true);
    expect(await coordinator.renewLease("bot:1", "replica-b", first!, 60_000)).toBe(false);
    expect(await coordinator.renewLease("bot:1", "replica-a", first! + 1, 60_000)).toBe(false);
    await coordinator.releaseLease("bot:1", "replica-b", first!);
    expect(await coordinator.leaseHolder("bot:1")).toEqual({ holder: "replica-a", token: first });
    await coordinator.releaseLease("bot:1", "replica-a", first!);
    expect(await coordinator.leaseHolder("bot:1")).toBeNull();
    const second = await coordinator.acquireLease("bot:1", "replica-b", 60_000);
    expect(second).toBeGreaterThan(first!);
    expect(await coordinator.acquireLease("bot:2", "replica-a", 60_000)).toBeTypeOf("number");
  });

  it("a lease not renewed expires; the next holder gets a higher token and the old one can neither renew nor release it", async () => {
    const { coordinator } = await open();
    const old = await coordinator.acquireLease("bot:1", "replica-a", 150);
    let next: number | null = null;
    await until("the lease to expire", async () => (next = await coordinator.acquireLease("bot:1", "replica-b", 60_000)) !== null);
    expect(next).toBeGreaterThan(old!);
    expect(await coordinator.renewLease("bot:1", "replica-a", old!, 60_000)).toBe(false);
    await coordinator.releaseLease("bot:1", "replica-a", old!);
    expect(await coordinator.leaseHolder("bot:1")).toEqual({ holder: "replica-b", token: next });
  });

  it("leases: 20 concurrent acquires by different holders grant exactly one", async () => {
    const { coordinator } = await open();
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => coordinator.acquireLease("contested", `replica-${i}`, 60_000)));
    expect(tokens.filter((token) => token !== null)).toHaveLength(1);
  });

  it("presence: announced members are listed with their info until withdrawn or expired", async () => {
    const { coordinator } = await open();
    await coordinator.announce("replicas", "b", '{"n":2}', 60_000);
    await coordinator.announce("replicas", "a", '{"n":1}', 60_000);
    await coordinator.announce("replicas", "a", '{"n":3}', 60_000);
    await coordinator.announce("replicas", "short", "{}", 150);
    expect(await coordinator.present("other")).toEqual([]);
    expect((await coordinator.present("replicas")).map((m) => m.member)).toContain("short");
    await until("the short announcement to expire", async () => (await coordinator.present("replicas")).length === 2);
    expect(await coordinator.present("replicas")).toEqual([
      { member: "a", info: '{"n":3}' },
      { member: "b", info: '{"n":2}' },
    ]);
    await coordinator.withdraw("replicas", "a");
    expect(await coordinator.present("replicas")).toEqual([{ member: "b", info: '{"n":2}' }]);
  });

  it("leases and presence refuse bad arguments with a clear error", async () => {
    const { coordinator } = await open();
    await expect(coordinator.acquireLease("k", "", 1_000)).rejects.toThrow(/holder/);
    await expect(coordinator.acquireLease("", "a", 1_000)).rejects.toThrow(TypeError);
    await expect(coordinator.acquireLease("k", "a", 0)).rejects.toThrow(/ttlMs/);
    await expect(coordinator.renewLease("k", "a", 1, 2.5)).rejects.toThrow(/ttlMs/);
    await expect(coordinator.announce("g", "", "{}", 1_000)).rejects.toThrow(TypeError);
    await expect(coordinator.announce("g", "a", "{}", -1)).rejects.toThrow(/ttlMs/);
    expect(await coordinator.leaseHolder("k")).toBeNull();
  });

  it("tickets of one line run one at a time in the order taken, whenever run is called; tokens grow", async () => {
    const store = await open();
    const tickets: Ticket[] = [];
    for (let i = 0; i < 4; i++) tickets.push(await store.coordinator.takeTicket("line-a", { leaseMs: 5_000 }));
    const other = await store.coordinator.takeTicket("line-b", { leaseMs: 5_000 });
    expect(await other.run(async () => "another line does not wait")).toBe("another line does not wait");
    const order: number[] = [];
    let inside = 0;
    const runs = [3, 1, 0, 2].map((i) =>
      tickets[i]!.run(async (token) => {
        inside += 1;
        expect(inside).toBe(1);
        await new Promise((resolve) => setImmediate(resolve));
        order.push(i);
        inside -= 1;
        return token;
      }),
    );
    const tokens = await Promise.all(runs);
    expect(order).toEqual([0, 1, 2, 3]);
    expect([tokens[2], tokens[1], tokens[3], tokens[0]]).toEqual([...tokens].sort((a, b) => a! - b!));
  });

  it("a released ticket lets the next one in; a ticket that waits too long gives up with a LockTimeoutError", async () => {
    const store = await open();
    const first = await store.coordinator.takeTicket("line", { leaseMs: 5_000 });
    const second = await store.coordinator.takeTicket("line", { leaseMs: 5_000 });
    await expect(second.run(async () => "late", { waitMs: 50 })).rejects.toThrow(LockTimeoutError);
    const third = await store.coordinator.takeTicket("line", { leaseMs: 5_000 });
    await first.release();
    await first.release();
    expect(await third.run(async () => "in")).toBe("in");
  });

  it("bus: a subscriber gets what is published on its topic, in order, until it unsubscribes", async () => {
    const store = await open();
    const got: string[] = [];
    const other: string[] = [];
    const unsubscribe = await store.bus.subscribe("topic-a", (m) => got.push(m));
    await store.bus.subscribe("topic-b", (m) => other.push(m));
    for (let i = 0; i < 20; i++) await store.bus.publish("topic-a", `m${i}`);
    await until("all 20 delivered", () => got.length === 20);
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    expect(other).toEqual([]);
    await unsubscribe();
    await store.bus.publish("topic-a", "after");
    await store.bus.publish("topic-b", "marker");
    await until("marker delivered", () => other.length === 1);
    expect(got).toHaveLength(20);
  });

  it("tallies: additions sum per key and field, across a restart, and stay apart by namespace and key", async () => {
    const store = await open();
    const usage = store.tallies("usage");
    const day = { ttlMs: 60_000 };
    await usage.add([{ key: "a", amounts: { tokens: 10, cost: 0.25 }, ...day }, { key: "b", amounts: { tokens: 1 }, ...day }]);
    await usage.add([{ key: "a", amounts: { tokens: 5, cost: 0.5 }, ...day }]);
    expect(await usage.read(["a", "b", "none"])).toEqual([{ tokens: 15, cost: 0.75 }, { tokens: 1 }, {}]);
    expect(await store.tallies("meta").read(["a"])).toEqual([{}]);
    await store.close();
    expect(await (await open()).tallies("usage").read(["a"])).toEqual([{ tokens: 15, cost: 0.75 }]);
  });

  it("tallies: a bounded addition lands only while every bound is below its limit, and says each bound's sum", async () => {
    const usage = (await open()).tallies("usage");
    const change = [{ key: "user", amounts: { tokens: 60 }, ttlMs: 60_000 }, { key: "global", amounts: { tokens: 60 }, ttlMs: 60_000 }];
    const bounds = [{ key: "user", field: "tokens", limit: 100 }, { key: "global", field: "tokens", limit: 1_000 }];
    expect(await usage.addWithin(change, bounds)).toEqual({ added: true, sums: [60, 60] });
    // 60 is below 100: the next lands too, past the limit (a call's size is known only afterwards).
    expect(await usage.addWithin(change, bounds)).toEqual({ added: true, sums: [120, 120] });
    expect(await usage.addWithin(change, bounds)).toEqual({ added: false, sums: [120, 120] });
    expect(await usage.read(["user", "global"])).toEqual([{ tokens: 120 }, { tokens: 120 }]);
    await expect(usage.add([{ key: "user", amounts: { tokens: Number.NaN }, ttlMs: 1 }])).rejects.toThrow(/finite number/);
  });

  it("tallies: sums are forgotten their TTL after the last change", async () => {
    const usage = (await open()).tallies("usage");
    await usage.add([{ key: "short", amounts: { tokens: 3 }, ttlMs: 50 }]);
    await until("the sum expired", async () => (await usage.read(["short"]))[0]!.tokens === undefined);
    await usage.add([{ key: "short", amounts: { tokens: 2 }, ttlMs: 60_000 }]);
    expect(await usage.read(["short"])).toEqual([{ tokens: 2 }]);
  });

  it("close is idempotent, and calls after close fail clearly", async () => {
    const store = await open();
    await store.close();
    await store.close();
    await expect(store.namespace("meta").get("k")).rejects.toThrow(/store get meta:k failed: the store is closed/);
    await expect(store.ping()).rejects.toThrow(/closed/);
  });
}
