import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { InboundDedup } from "../../src/gateway/inbound-dedup.js";
import type { InboundMessage } from "../../src/core/types.js";
import { DurableList } from "../../src/infra/store/durable-list.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";

const log = pino({ level: "silent" });
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function sqliteStore(dataDir?: string): Promise<{ store: Store; dataDir: string }> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "switchboard-dedup-")));
  const store = await createStore({ url: null, dataDir: dir, log });
  stores.push(store);
  return { store, dataDir: dir };
}

const options = { ttlMs: 60_000, leaseMs: 10_000 };

describe("inbound dedup", () => {
  it("drops a redelivery while the message is handled and after it was", async () => {
    const { store } = await sqliteStore();
    const dedup = new InboundDedup(store, options);
    expect(await dedup.claim("telegram:1")).toBe("claimed");
    expect(await dedup.claim("telegram:1")).toBe("handled");
    await dedup.finish("telegram:1");
    expect(await dedup.claim("telegram:1")).toBe("handled");
    expect(await dedup.claim("telegram:2")).toBe("claimed");
  });

  it("claims each message once among concurrent deliveries", async () => {
    const { store } = await sqliteStore();
    const dedup = new InboundDedup(store, options);
    const claims = await Promise.all(Array.from({ length: 20 }, () => dedup.claim("web:c:m")));
    expect(claims.filter((c) => c === "claimed")).toHaveLength(1);
  });

  it("keeps nothing in memory for a message once it is finished or given back", async () => {
    const { store } = await sqliteStore();
    const dedup = new InboundDedup(store, options);
    // Private: what is kept per message in flight is what this test is about (one entry per message ever was a leak).
    const kept = () => {
      const sets = dedup as unknown as { held: Set<string>; handling: Set<string> };
      return sets.held.size + sets.handling.size;
    };
    for (let i = 0; i < 100; i++) {
      expect(await dedup.claim(`telegram:${i}`)).toBe("claimed");
      await (i % 2 === 0 ? dedup.finish(`telegram:${i}`) : dedup.release(`telegram:${i}`));
    }
    expect(kept()).toBe(0);
    expect(await dedup.claim("telegram:0")).toBe("handled");
    expect(await dedup.claim("telegram:1")).toBe("claimed");
    expect(kept()).toBe(2); // held and handling for the one claimed now
  });

  it("answered: the message is done and out of its inbox after one write, before the turn finishes; finish then writes nothing", async () => {
    const first = await sqliteStore();
    const inbox = new DurableList<{ id: string }>(first.store, "test-inbox", (e) => e.id);
    await inbox.add({ id: "9" });
    await inbox.add({ id: "10" });
    const dedup = new InboundDedup(first.store, options);
    expect(await dedup.claim("telegram:9")).toBe("claimed");
    const message = { id: "telegram:9", inbox: { list: "test-inbox", id: "9" } } as InboundMessage;
    await dedup.answered(message);
    await first.store.close(); // a crash right after: finish never runs

    const restarted = await sqliteStore(first.dataDir);
    expect(await new DurableList<{ id: string }>(restarted.store, "test-inbox", (e) => e.id).all()).toEqual([{ id: "10" }]);
    expect(await new InboundDedup(restarted.store, options).claim("telegram:9")).toBe("handled");
    const kept = dedup as unknown as { answeredHere: Set<string> };
    expect(kept.answeredHere.size).toBe(1);
    await dedup.finish("telegram:9"); // on the closed store: it writes nothing, or it would throw
    expect(kept.answeredHere.size).toBe(0);
  });

  it("on SQLite, handles again after a restart a message whose handling died with the process", async () => {
    const first = await sqliteStore();
    expect(await new InboundDedup(first.store, options).claim("telegram:7")).toBe("claimed"); // never finished: a crash
    const finished = new InboundDedup(first.store, options);
    expect(await finished.claim("telegram:8")).toBe("claimed");
    await finished.finish("telegram:8");
    await first.store.close();

    const restarted = await sqliteStore(first.dataDir);
    const dedup = new InboundDedup(restarted.store, options);
    expect(await dedup.claim("telegram:7")).toBe("claimed");
    expect(await dedup.claim("telegram:8")).toBe("handled");
  });

  describe.skipIf(!process.env.REDIS_URL)("on Redis", () => {
    /** Two replicas' stores on one Redis, sharing a key prefix of their own. */
    const replicaStores = (): Promise<[Store, Store]> => {
      const keyPrefix = `test-dedup-${randomUUID()}:`;
      const open = () => createStore({ url: process.env.REDIS_URL!, dataDir: tmpdir(), log, keyPrefix });
      return Promise.all([open(), open()]);
    };

    it("honours another replica's claim until its lease runs out", async () => {
      const [a, b] = await replicaStores();
      stores.push(a, b);
      let now = 1_000_000;
      const replicaA = new InboundDedup(a, { ...options, now: () => now });
      const replicaB = new InboundDedup(b, { ...options, now: () => now });
      expect(await replicaA.claim("feishu:m1")).toBe("claimed");
      // B waits while A's claim is live; A dying without finishing hands it over once its lease runs out.
      const waiting = replicaB.claim("feishu:m1");
      now += options.leaseMs + 1;
      expect(await waiting).toBe("claimed");
      await replicaB.finish("feishu:m1");
      now += options.leaseMs * 10;
      expect(await replicaA.claim("feishu:m1")).toBe("handled");
    });

    it("a claim waiting for another replica ends as a duplicate when that one finishes, or deferred at shutdown", async () => {
      const [a, b] = await replicaStores();
      stores.push(a, b);
      let accepting = true;
      const replicaA = new InboundDedup(a, options);
      const replicaB = new InboundDedup(b, { ...options, keepWaiting: () => accepting });
      expect(await replicaA.claim("discord:m1")).toBe("claimed");
      const waiting = replicaB.claim("discord:m1");
      await replicaA.finish("discord:m1");
      expect(await waiting).toBe("handled");
      expect(await replicaA.claim("discord:m2")).toBe("claimed");
      const atShutdown = replicaB.claim("discord:m2");
      accepting = false;
      expect(await atShutdown).toBe("deferred");
    });

    it("the owner renews its claim while it handles the message; once it dies the claim runs out", async () => {
      const [a, b] = await replicaStores();
      stores.push(b);
      const short = { ttlMs: 60_000, leaseMs: 300 };
      const replicaA = new InboundDedup(a, short);
      const replicaB = new InboundDedup(b, short);
      expect(await replicaA.claim("telegram:10")).toBe("claimed");
      const waiting = replicaB.claim("telegram:10");
      // Four leases long, A's renewals keep the message A's.
      const outcome = await Promise.race([waiting, new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_200))]);
      expect(outcome).toBe("still waiting");
      await replicaA.finish("telegram:10");
      expect(await waiting).toBe("handled");

      expect(await replicaA.claim("telegram:11")).toBe("claimed");
      await a.close(); // A dies: its renewals fail from now on
      expect(await replicaB.claim("telegram:11")).toBe("claimed");
    });

    it("a claim given back at shutdown (deferred) can be taken by another replica at once", async () => {
      const [a, b] = await replicaStores();
      stores.push(a, b);
      const replicaA = new InboundDedup(a, options);
      const replicaB = new InboundDedup(b, { ...options, keepWaiting: () => false });
      expect(await replicaA.claim("telegram:9")).toBe("claimed");
      await replicaB.release("telegram:9"); // not B's claim: left alone
      expect(await replicaB.claim("telegram:9")).toBe("deferred");
      await replicaA.release("telegram:9");
      expect(await replicaB.claim("telegram:9")).toBe("claimed");
    });
  });
});
