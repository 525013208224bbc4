/** Two replicas on one Redis: the claims (SET NX) make every run happen exactly once across them. */
import { randomUUID } from "node:crypto";
import { createClient } from "@keyv/redis";
import { afterAll, describe, expect, it } from "vitest";
import { electForCronSlot } from "../../src/scheduler/claims.js";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { ALICE, makeScheduler, ManualClock, RecordingChannel, reminder, silentLog } from "./helpers.js";

const REDIS_URL = process.env.REDIS_URL;
const RUN_PREFIX = `switchboard-test:${randomUUID()}:`;
const NOW = Date.parse("2026-03-28T10:00:00Z");

describe.skipIf(!REDIS_URL)("scheduler on Redis", () => {
  const stores: Store[] = [];
  const schedulers: Scheduler[] = [];

  afterAll(async () => {
    for (const s of schedulers) await s.stop(0);
    for (const s of stores) await s.close();
    const client = createClient({ url: REDIS_URL! });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${RUN_PREFIX}*` })) if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  const replica = async (keyPrefix: string, clock: ManualClock, channel: RecordingChannel): Promise<Scheduler> => {
    const store = await createStore({ url: REDIS_URL!, dataDir: "/nonexistent", log: silentLog, keyPrefix });
    stores.push(store);
    const scheduler = makeScheduler({ store, clock, channel, config: { maxActivePerUser: 1_000 } });
    schedulers.push(scheduler);
    return scheduler;
  };

  it("two schedulers, 200 tasks due at once: each delivered exactly once", async () => {
    const keyPrefix = `${RUN_PREFIX}${randomUUID()}:`;
    const clock = new ManualClock(NOW);
    const [channelA, channelB] = [new RecordingChannel(), new RecordingChannel()];
    const a = await replica(keyPrefix, clock, channelA);
    const b = await replica(keyPrefix, clock, channelB);
    await a.start();
    for (let i = 0; i < 100; i++) await a.create(reminder({ text: `r${i}`, when: { in: "1m" } }), ALICE);
    await b.start(); // loads the first hundred from the index
    for (let i = 100; i < 200; i++) await a.create(reminder({ text: `r${i}`, when: { in: "1m" } }), ALICE);
    await b.sync(); // picks up the rest: the index revision changed
    expect(a.armed.due).toBe(200);
    expect(b.armed.due).toBe(200);

    clock.advance(60_000);
    await Promise.all([a.idle(), b.idle()]);
    const delivered = [...channelA.texts(), ...channelB.texts()];
    expect(delivered).toHaveLength(200);
    expect(new Set(delivered).size).toBe(200);
    // Both replicas took part: the claims, not an accident of timing, kept them apart.
    expect(channelA.sent.length).toBeGreaterThan(0);
    expect(channelB.sent.length).toBeGreaterThan(0);
  });

  it("one replica is elected per cron slot", async () => {
    const keyPrefix = `${RUN_PREFIX}${randomUUID()}:`;
    const [one, two] = [
      await createStore({ url: REDIS_URL!, dataDir: "/nonexistent", log: silentLog, keyPrefix }),
      await createStore({ url: REDIS_URL!, dataDir: "/nonexistent", log: silentLog, keyPrefix }),
    ];
    stores.push(one, two);
    const slot = Date.parse("2026-03-28T09:00:00Z");
    const answers = await Promise.all([electForCronSlot(one.coordinator, "task1", slot), electForCronSlot(two.coordinator, "task1", slot)]);
    expect(answers.sort()).toEqual([false, true]);
    // The next slot is a new election.
    expect(await electForCronSlot(two.coordinator, "task1", slot + 86_400_000)).toBe(true);
  });
});
