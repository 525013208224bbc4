import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:net";
import { inspect } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "@keyv/redis";
import { CachedNamespace } from "../../../src/infra/store/cached-namespace.js";
import { createStore, LockTimeoutError, StoreError, type Store } from "../../../src/infra/store/index.js";
import { captureLog, holdLock, racingIncrements, storeContract, until } from "./store-contract.js";

const REDIS_URL = process.env.REDIS_URL;
/** Every key of this run starts with this, so runs never collide and cleanup finds them. */
const RUN_PREFIX = `switchboard-test:${randomUUID()}:`;

function openRedis(keyPrefix: string, log = captureLog().log): Promise<Store> {
  return createStore({ url: REDIS_URL!, dataDir: "/nonexistent", log, keyPrefix });
}

describe.skipIf(!REDIS_URL)("Redis store", () => {
  afterAll(async () => {
    const client = createClient({ url: REDIS_URL! });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${RUN_PREFIX}*` })) {
      if (keys.length > 0) await client.del(keys);
    }
    await client.close();
  });

  describe("the store contract", () => {
    storeContract(async () => {
      const keyPrefix = `${RUN_PREFIX}${randomUUID()}:`;
      return { open: () => openRedis(keyPrefix) };
    });
  });

  describe("two replicas", () => {
    const replicas: Store[] = [];
    const twoReplicas = async (): Promise<[Store, Store]> => {
      const keyPrefix = `${RUN_PREFIX}${randomUUID()}:`;
      const pair: [Store, Store] = [await openRedis(keyPrefix), await openRedis(keyPrefix)];
      replicas.push(...pair);
      return pair;
    };
    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.close()));
    });

    it("see each other's values", async () => {
      const [a, b] = await twoReplicas();
      expect(a.backend).toBe("redis");
      await a.namespace<string>("sessions").set("chat", "from a");
      expect(await b.namespace<string>("sessions").get("chat")).toBe("from a");
    });

    it("racing setIfAbsent: exactly one of 50 calls wins", async () => {
      const [a, b] = await twoReplicas();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).coordinator.setIfAbsent("telegram:1", 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("racing for the last of a tally's limit: exactly one of 20 bounded additions lands", async () => {
      const [a, b] = await twoReplicas();
      const change = [{ key: "user", amounts: { tokens: 50 }, ttlMs: 60_000 }];
      const bound = [{ key: "user", field: "tokens", limit: 100 }];
      await a.tallies("usage").add([{ key: "user", amounts: { tokens: 99.5 }, ttlMs: 60_000 }]);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).tallies("usage").addWithin(change, bound)));
      expect(results.filter((r) => r.added)).toHaveLength(1);
      expect(await b.tallies("usage").read(["user"])).toEqual([{ tokens: 149.5 }]);
    });

    it("racing withLock: 20 increments, never two holders at once", async () => {
      const [a, b] = await twoReplicas();
      expect(await racingIncrements([a, b], 20)).toEqual({ count: 20, maxInside: 1 });
    });

    it("a holder keeps its lock past the lease while it runs", async () => {
      const [a, b] = await twoReplicas();
      // A lease long enough that a loaded machine's stall cannot outlast it between two renewals.
      const holder = await holdLock(a.coordinator, "long", { leaseMs: 1_000 });
      // Three and a half leases long: only renewals keep b out that long.
      await expect(b.coordinator.withLock("long", async () => "in", { waitMs: 3_500 })).rejects.toThrow(LockTimeoutError);
      holder.release();
      await holder.finished;
      expect(await b.coordinator.withLock("long", async () => "in", { waitMs: 1_000 })).toBe("in");
    });

    it("the lock of a replica that died expires with its lease", async () => {
      const [a, b] = await twoReplicas();
      const holder = await holdLock(a.coordinator, "crash", { leaseMs: 300 });
      await a.close();
      const started = Date.now();
      expect(await b.coordinator.withLock("crash", async () => "taken over", { waitMs: 5_000 })).toBe("taken over");
      expect(Date.now() - started).toBeLessThan(5_000);
      holder.release();
      expect(await holder.finished).toBe("finished");
    });

    it("tickets taken on two replicas run in the order taken; a ticket whose holder died is skipped after its lease", async () => {
      const [a, b] = await twoReplicas();
      const first = await a.coordinator.takeTicket("session:x", { leaseMs: 2_000 });
      const second = await b.coordinator.takeTicket("session:x", { leaseMs: 2_000 });
      const third = await a.coordinator.takeTicket("session:x", { leaseMs: 2_000 });
      const order: string[] = [];
      const thirdRun = third.run(async () => order.push("third"));
      const secondRun = second.run(async () => order.push("second"), { waitMs: 5_000 });
      await first.run(async () => order.push("first"));
      await Promise.all([secondRun, thirdRun]);
      expect(order).toEqual(["first", "second", "third"]);

      // A holder that dies: its lease is no longer renewed, and the next ticket runs once it ran out.
      const dying = await a.coordinator.takeTicket("session:y", { leaseMs: 300 });
      const next = await b.coordinator.takeTicket("session:y", { leaseMs: 300 });
      await a.close();
      const started = Date.now();
      expect(await next.run(async (token) => token, { waitMs: 5_000 })).toBeGreaterThan(dying.token);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    });

    it("a waiting ticket that lost its place (its lease ran out, its holder alive) takes a new one and still runs", async () => {
      const [a, b] = await twoReplicas();
      const first = await a.coordinator.takeTicket("session:lost", { leaseMs: 5_000 });
      const second = await b.coordinator.takeTicket("session:lost", { leaseMs: 5_000 });
      const raw = createClient({ url: REDIS_URL! });
      await raw.connect();
      const [prefix] = (await raw.keys(`${RUN_PREFIX}*line:session:lost`)).map((key) => key.slice(0, -"line:session:lost".length));
      // As if renewals had failed past the lease: another replica purged the ticket.
      await raw.hDel(`${prefix}line:session:lost`, `t${second.token}`);
      await raw.close();
      const lostToken = second.token;
      const ran = second.run(async (token) => token, { waitMs: 5_000 });
      await first.release();
      expect(await ran).toBeGreaterThan(lostToken);
    });

    it("fence: a token older than one that wrote is refused", async () => {
      const [a, b] = await twoReplicas();
      expect(await a.coordinator.fence("session:z", 1)).toBe(true);
      expect(await b.coordinator.fence("session:z", 2)).toBe(true);
      expect(await a.coordinator.fence("session:z", 1)).toBe(false);
      expect(await b.coordinator.fence("session:z", 2)).toBe(true);
    });

    it("a cached namespace drops what another replica changed, once the bus carries the change", async () => {
      const [a, b] = await twoReplicas();
      const options = { topic: "test.cache", ttlMs: 60_000, max: 10 };
      const onA = new CachedNamespace(a.namespace<string>("meta"), a.bus, options);
      const onB = new CachedNamespace(b.namespace<string>("meta"), b.bus, options);
      expect(await onB.get("zone")).toBeUndefined();
      await onA.set("zone", "Europe/Berlin");
      await until("replica b sees the new value", async () => (await onB.get("zone")) === "Europe/Berlin");
    });

    it("the bus carries messages between replicas", async () => {
      const [a, b] = await twoReplicas();
      const got: string[] = [];
      await b.bus.subscribe("web", (m) => got.push(m));
      expect(a.bus.crossesProcesses).toBe(true);
      await a.bus.publish("web", "hello from a");
      await until("b got it", () => got.length === 1);
      expect(got).toEqual(["hello from a"]);
    });

    it("shared counters: a window counts both replicas' events; a slot pool holds max holders across replicas", async () => {
      const [a, b] = await twoReplicas();
      const counts = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).coordinator.shared!.countInWindow("user:1", 60_000, Date.now())));
      expect([...counts].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      // The caller's clock ends the window: a window opened at t lasts until t + windowMs. (Redis forgets the window
      // when it ends by the caller's clock, in real time: a count near the end would leave the reads after it no time.)
      const t = 5_000_000;
      expect(await a.coordinator.shared!.countInWindow("user:2", 60_000, t)).toBe(1);
      expect(await b.coordinator.shared!.countInWindow("user:2", 60_000, t + 30_000)).toBe(2);
      expect(await b.coordinator.shared!.windowCount("user:2", 60_000, t + 59_999)).toBe(2);
      expect(await a.coordinator.shared!.windowCount("user:2", 60_000, t + 60_000)).toBe(0);
      expect(await a.coordinator.shared!.countInWindow("user:2", 60_000, t + 60_000)).toBe(1);

      const shared = b.coordinator.shared!;
      const slotA = await a.coordinator.shared!.claimSlot("user:1", "session-1", 2, { leaseMs: 1_000 });
      const again = await shared.claimSlot("user:1", "session-1", 2, { leaseMs: 1_000 });
      const slotB = await shared.claimSlot("user:1", "session-2", 2, { leaseMs: 1_000 });
      expect([slotA, again, slotB].every((slot) => slot !== null)).toBe(true);
      expect(await shared.claimSlot("user:1", "session-3", 2)).toBeNull();
      await again!();
      await slotB!();
      // Held past several leases by renewal while a lives; then a's slot dies with a and frees the pool.
      const slotC = await shared.claimSlot("user:1", "session-3", 2, { leaseMs: 1_000 });
      expect(await shared.claimSlot("user:1", "session-4", 2)).toBeNull();
      await a.close();
      let slotD: (() => Promise<void>) | null = null;
      await until("a's slot expired", async () => (slotD = await shared.claimSlot("user:1", "session-4", 2)) !== null, 5_000);
      await slotD!();
      await slotC!();
    });
  });
});

describe("Redis store: unreachable servers", () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  async function expectClearFailure(url: string, password: string, withinMs: number): Promise<void> {
    const { log, lines } = captureLog([password]);
    const started = Date.now();
    const error: unknown = await createStore({ url, dataDir: "/nonexistent", log }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(Date.now() - started).toBeLessThan(withinMs);
    expect(error).toBeInstanceOf(StoreError);
    const text = inspect(error, { depth: 10 });
    expect((error as Error).message).toMatch(/^store connect redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ failed: /);
    expect(text).not.toContain(password);
    expect(lines.join("")).not.toContain(password);
  }

  it("rejects quickly when nothing listens on the port, without the password", async () => {
    const port = await freePort();
    await expectClearFailure(`redis://:hunter2secret@127.0.0.1:${port}`, "hunter2secret", 3_000);
  });

  it("rejects within seconds when the server accepts but never answers", async () => {
    const silent = createServer(() => undefined);
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    await expectClearFailure(`redis://:hunter2secret@127.0.0.1:${port}`, "hunter2secret", 8_000);
  });

  it("rejects an unparsable redis URL without echoing it", async () => {
    const opening = createStore({ url: "redis://:hunter2secret@[bad", dataDir: "/nonexistent", log: captureLog().log });
    await expect(opening).rejects.toThrow(/store URL is not a valid redis:\/\/ URL/);
    await expect(opening).rejects.not.toThrow(/hunter2secret/);
  });
});
