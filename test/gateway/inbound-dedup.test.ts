import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { InboundDedup } from "../../src/gateway/inbound-dedup.js";
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
    expect(await dedup.claim("telegram:1")).toBe(true);
    expect(await dedup.claim("telegram:1")).toBe(false);
    await dedup.finish("telegram:1");
    expect(await dedup.claim("telegram:1")).toBe(false);
    expect(await dedup.claim("telegram:2")).toBe(true);
  });

  it("claims each message once among concurrent deliveries", async () => {
    const { store } = await sqliteStore();
    const dedup = new InboundDedup(store, options);
    const claims = await Promise.all(Array.from({ length: 20 }, () => dedup.claim("web:c:m")));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it("on SQLite, handles again after a restart a message whose handling died with the process", async () => {
    const first = await sqliteStore();
    expect(await new InboundDedup(first.store, options).claim("telegram:7")).toBe(true); // never finished: a crash
    const finished = new InboundDedup(first.store, options);
    expect(await finished.claim("telegram:8")).toBe(true);
    await finished.finish("telegram:8");
    await first.store.close();

    const restarted = await sqliteStore(first.dataDir);
    const dedup = new InboundDedup(restarted.store, options);
    expect(await dedup.claim("telegram:7")).toBe(true);
    expect(await dedup.claim("telegram:8")).toBe(false);
  });

  describe.skipIf(!process.env.REDIS_URL)("on Redis", () => {
    it("honours another replica's claim until its lease runs out", async () => {
      const keyPrefix = `test-dedup-${randomUUID()}:`;
      const open = () => createStore({ url: process.env.REDIS_URL!, dataDir: tmpdir(), log, keyPrefix });
      const [a, b] = await Promise.all([open(), open()]);
      stores.push(a, b);
      let now = 1_000_000;
      const replicaA = new InboundDedup(a, { ...options, now: () => now });
      const replicaB = new InboundDedup(b, { ...options, now: () => now });
      expect(await replicaA.claim("feishu:m1")).toBe(true);
      expect(await replicaB.claim("feishu:m1")).toBe(false);
      now += options.leaseMs + 1; // replica A died without finishing
      expect(await replicaB.claim("feishu:m1")).toBe(true);
      await replicaB.finish("feishu:m1");
      now += options.leaseMs * 10;
      expect(await replicaA.claim("feishu:m1")).toBe(false);
    });
  });
});
