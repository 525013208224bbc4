import { randomUUID } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Gateway } from "../../../src/app.js";
import { configSchema, type Config } from "../../../src/config.js";
import { memoryFeature } from "../../../src/features/memory.js";
import { schedulerFeature } from "../../../src/features/scheduler.js";
import { writeBackup } from "../../../src/infra/backup/backup.js";
import { migrateToRedis, restoreBackup } from "../../../src/infra/backup/restore.js";
import { createStore } from "../../../src/infra/store/index.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { captureLog } from "../../helpers/captured-log.js";
import { deleteKeys, REDIS_URL } from "../../replicas/harness.js";

const dirs: string[] = [];
const prefixes: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-backup-redis-"));
  dirs.push(dir);
  return dir;
}
function keyPrefix(): string {
  const prefix = `switchboard-test:backup:${randomUUID()}:`;
  prefixes.push(prefix);
  return prefix;
}
afterAll(async () => {
  if (REDIS_URL) for (const prefix of prefixes) await deleteKeys(prefix);
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const alice = { channel: "api", userId: "alice", chatId: "history", chatType: "direct" } as const;

/** A gateway on `store` that holds a reminder, a memory and a chat's history, and answers every message with its text. */
async function gatewayWithRecords(store: { url?: string; keyPrefix: string }): Promise<TestGateway> {
  const t = await startTestGateway({ store });
  t.fake.respondWith((request) => ({ text: `echo: ${userTextsOf(request).at(-1) ?? ""}` }));
  expect((await t.post({ chatId: "history", userId: "alice", text: "my cat is called Miso" })).body.outcome).toBe("answered");
  expect((await t.post({ chatId: "history", userId: "alice", text: "/remind in 2h water the plants" })).body.outcome).toBeDefined();
  await t.gateway.feature(memoryFeature)!.memory!.engine.add(alice, { content: "prefers green tea", kind: "preference", scope: "user" });
  return t;
}

/** Replicas on Redis under `prefix`, each with its own data dir, answered by `t`'s fake model. */
async function replicasOn(t: TestGateway, prefix: string, count: number): Promise<Array<{ gateway: Gateway; url: string }>> {
  const replicas: Array<{ gateway: Gateway; url: string }> = [];
  for (let i = 0; i < count; i++) {
    const config: Config = configSchema.parse({ ...t.config, store: { url: REDIS_URL, keyPrefix: prefix }, dataDir: await tempDir(), http: { ...t.config.http, port: 0 } });
    const gateway = await Gateway.create(config, { log: captureLog([], "warn").log });
    replicas.push({ gateway, url: (await gateway.start()).url });
  }
  return replicas;
}

async function expectSameRecords(t: TestGateway, replicas: Array<{ gateway: Gateway; url: string }>): Promise<void> {
  const [a, b] = [replicas[0]!, replicas.at(-1)!];
  const tasks = await a.gateway.feature(schedulerFeature)!.scheduler!.list({ kind: "operator" }, { everyone: true });
  expect(tasks.map((task) => task.name)).toEqual(["water the plants"]);
  const memories = await b.gateway.feature(memoryFeature)!.memory!.engine.list({ kind: "user", channel: "api", userId: "alice" });
  expect(memories.map((m) => m.content)).toEqual(["prefers green tea"]);
  const reply = await fetch(`${b.url}/api/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chatId: "history", userId: "alice", text: "what is my cat called?" }),
  });
  expect(((await reply.json()) as { outcome: string }).outcome).toBe("answered");
  expect(userTextsOf(t.fake.requests.at(-1)!).join("\n")).toContain("my cat is called Miso");
}

describe.skipIf(!REDIS_URL)("moving a gateway to Redis", () => {
  it("migrate copies a stopped SQLite gateway into Redis, where two replicas run on the same history, reminders and memories", async () => {
    const prefix = keyPrefix();
    const t = await gatewayWithRecords({ keyPrefix: prefix });
    const location = { url: null, keyPrefix: prefix, dataDir: t.config.dataDir };
    await expect(migrateToRedis({ location, to: REDIS_URL!, force: false })).rejects.toThrow(/gateway is running/);
    await t.gateway.stop();

    const { keys } = await migrateToRedis({ location, to: REDIS_URL!, force: false });
    expect(keys).toBeGreaterThan(3);
    await expect(migrateToRedis({ location, to: REDIS_URL!, force: false })).rejects.toThrow(/is not empty/);

    const replicas = await replicasOn(t, prefix, 2);
    try {
      await expectSameRecords(t, replicas);
    } finally {
      await Promise.all(replicas.map((r) => r.gateway.stop()));
      await t.fake.close();
    }
  });

  it("a Redis gateway's backup restores into an empty prefix (a new Redis), and not over a used one without --force", async () => {
    const prefix = keyPrefix();
    const t = await gatewayWithRecords({ url: REDIS_URL!, keyPrefix: prefix });
    const archive = join(await tempDir(), "redis.tar.gz");
    const manifest = await writeBackup({ location: { url: REDIS_URL!, keyPrefix: prefix, dataDir: t.config.dataDir }, file: archive, version: "1.2.3" });
    await t.gateway.stop();
    expect(manifest).toMatchObject({ store: "redis", keyPrefix: prefix, schemaVersion: 1 });
    expect(manifest.counts.listItems.sessions).toBeGreaterThan(0);

    const fresh = keyPrefix();
    const target = { url: REDIS_URL!, keyPrefix: fresh, dataDir: await tempDir() };
    await restoreBackup({ location: target, file: archive, force: false });
    await expect(restoreBackup({ location: target, file: archive, force: false })).rejects.toThrow(/is not empty/);
    await expect(restoreBackup({ location: { ...target, url: null }, file: archive, force: true })).rejects.toThrow(/backup of a Redis store/);

    const replicas = await replicasOn(t, fresh, 1);
    try {
      await expectSameRecords(t, replicas);
    } finally {
      await Promise.all(replicas.map((r) => r.gateway.stop()));
      await t.fake.close();
    }
  });

  it("warns at start when Redis keeps nothing on disk, as the test Redis is run", async () => {
    const store = await createStore({ url: REDIS_URL!, dataDir: "/nonexistent", log: captureLog([]).log, keyPrefix: keyPrefix() });
    try {
      const client = await import("@keyv/redis").then(({ createClient }) => createClient({ url: REDIS_URL! }));
      await client.connect();
      const settings = await client.configGet(["save", "appendonly"]);
      await client.close();
      const volatile = settings.appendonly === "no" && (settings.save ?? "").trim() === "";
      const warnings = await store.durabilityWarnings();
      expect(warnings.some((w) => w.includes("keeps nothing on disk"))).toBe(volatile);
    } finally {
      await store.close();
    }
  });
});

/** A private redis-server with the given settings, for as long as the test runs. */
async function privateRedis(settings: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const dir = await tempDir();
  const server: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, ...settings], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  while (!output.includes("Ready to accept connections")) await once(server.stdout!, "data");
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      server.kill();
      await once(server, "exit");
    },
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const hasRedisServer = await import("node:child_process").then(({ spawnSync }) => spawnSync("redis-server", ["--version"]).status === 0);

describe.skipIf(!hasRedisServer)("Redis persistence warnings (a private redis-server)", () => {
  it.each([
    { name: "nothing on disk, evicting", settings: ["--save", "", "--appendonly", "no", "--maxmemory-policy", "allkeys-lru"], expected: [/keeps nothing on disk/, /may evict keys \(maxmemory-policy allkeys-lru\)/] },
    { name: "AOF, noeviction: no warning", settings: ["--save", "", "--appendonly", "yes", "--maxmemory-policy", "noeviction"], expected: [] },
    { name: "snapshots, evicting keys with a TTL", settings: ["--save", "3600 1", "--appendonly", "no", "--maxmemory-policy", "volatile-ttl"], expected: [/may evict keys \(maxmemory-policy volatile-ttl\)/] },
  ])("$name", async ({ settings, expected }) => {
    const redis = await privateRedis(settings);
    try {
      const { log, logs } = captureLog([], "warn");
      const config = configSchema.parse({ dataDir: await tempDir(), store: { url: redis.url }, http: { port: 0 } });
      const gateway = await Gateway.create(config, { log });
      await gateway.stop();
      const warned = logs.filter((l) => l.component === "store").map((l) => String(l.msg));
      expect(warned).toHaveLength(expected.length);
      expected.forEach((pattern, i) => expect(warned[i]).toMatch(pattern));
    } finally {
      await redis.stop();
    }
  });
});
