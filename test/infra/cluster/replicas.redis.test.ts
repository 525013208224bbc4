/** Live replicas on Redis: the heartbeat registry, and what doctor says about them. */
import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config.js";
import { runDoctor } from "../../../src/doctor.js";
import { ReplicaRegistry } from "../../../src/infra/cluster/registry.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { eventually } from "../../helpers/wait.js";

const REDIS_URL = process.env.REDIS_URL;
const log = pino({ level: "silent" });

describe.skipIf(!REDIS_URL)("replicas on Redis", () => {
  const keyPrefix = `switchboard-test:${randomUUID()}:`;
  const stores: Store[] = [];
  const open = async () => {
    const store = await createStore({ url: REDIS_URL!, dataDir: tmpdir(), log, keyPrefix });
    stores.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const client = createClient({ url: REDIS_URL! });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}*` })) if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  it("lists the replicas that beat, with their leases; one that stops, or stops beating, drops off", async () => {
    const [a, b] = [await open(), await open()];
    // Heartbeats far apart, so a loaded machine stalling the test (doctor loads many modules) cannot expire them;
    // running out is shown below with an announcement of its own short lifetime.
    const heartbeatMs = 60_000;
    const holder = new ReplicaRegistry({ presence: a.coordinator, id: "replica-x", heartbeatMs, log, leases: () => ["telegram:1"] });
    const standby = new ReplicaRegistry({ presence: b.coordinator, id: "replica-y", heartbeatMs, log, leases: () => [] });
    await holder.start();
    await standby.start();
    expect((await standby.live()).map((r) => [r.id, r.leases])).toEqual([
      ["replica-x", ["telegram:1"]],
      ["replica-y", []],
    ]);

    const results = await runDoctor(configSchema.parse({ dataDir: await mkdtemp(join(tmpdir(), "switchboard-doctor-")), store: { url: REDIS_URL, keyPrefix } }), log);
    // What follows the replicas is the warning of a Redis that keeps nothing on disk, when the test's Redis is one.
    expect(results.find((r) => r.name === "store")).toMatchObject({ ok: true, detail: expect.stringMatching(/^redis answers; 2 live replicas: replica-x \(holds telegram:1\), replica-y(;|$)/) });

    await standby.stop();
    expect((await holder.live()).map((r) => r.id)).toEqual(["replica-x"]);
    // A replica killed without a goodbye: its last announcement runs out after three missed heartbeats.
    await a.coordinator.announce("replicas", "replica-gone", JSON.stringify({ startedAt: "then", leases: [] }), 1_000);
    expect((await holder.live()).map((r) => r.id)).toContain("replica-gone");
    await eventually(async () => !(await holder.live()).some((r) => r.id === "replica-gone"), "the silent replica to drop off", 5_000);
    await holder.stop();
  });
});
