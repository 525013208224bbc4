import { mkdtemp, rm, stat, writeFile, mkdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Gateway } from "../../../src/app.js";
import { configSchema, type Config } from "../../../src/config.js";
import { memoryFeature } from "../../../src/features/memory.js";
import { schedulerFeature } from "../../../src/features/scheduler.js";
import { writeBackup } from "../../../src/infra/backup/backup.js";
import { BackupRefusedError } from "../../../src/infra/backup/manifest.js";
import { restoreBackup } from "../../../src/infra/backup/restore.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { captureLog } from "../../helpers/captured-log.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-backup-test-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const location = (config: Config) => ({ url: config.store.url, keyPrefix: config.store.keyPrefix, dataDir: config.dataDir });
const alice = { channel: "api", userId: "alice", chatId: "history", chatType: "direct" } as const;

/** A gateway that answers every message with its text, and holds a reminder, a memory and a chat's history. */
async function busyGateway(): Promise<TestGateway> {
  const t = await startTestGateway();
  t.fake.respondWith((request) => ({ text: `echo: ${userTextsOf(request).at(-1) ?? ""}` }));
  expect((await t.post({ chatId: "history", userId: "alice", text: "my cat is called Miso" })).body.outcome).toBe("answered");
  const remind = await t.post({ chatId: "history", userId: "alice", text: "/remind in 2h water the plants" });
  expect(remind.body.replies?.[0]?.text).toMatch(/^Reminder "water the plants"/);
  await t.gateway.feature(memoryFeature)!.memory!.engine.add(alice, { content: "prefers green tea", kind: "preference", scope: "user" });
  await writeFile(join(t.config.dataDir, "skills-note.txt"), "a file beside the store");
  return t;
}

describe("backup and restore on SQLite", () => {
  it("backs up while messages flow, losing none, and restores a gateway with the same history, reminders and memories", async () => {
    const t = await busyGateway();
    const archive = join(await tempDir(), "nested", "gateway.tar.gz");
    const load = Array.from({ length: 40 }, (_, i) => t.post({ chatId: `load-${i % 4}`, userId: "bob", text: `message ${i}` }));
    const [manifest, ...answers] = await Promise.all([writeBackup({ location: location(t.config), file: archive, version: "9.9.9" }), ...load]);
    expect(answers.map((a) => a.body.outcome)).toEqual(Array(40).fill("answered"));
    await t.gateway.stop();

    expect((await stat(archive)).mode & 0o777).toBe(0o600);
    expect(manifest).toMatchObject({ format: "switchboard-backup", switchboard: "9.9.9", store: "sqlite", schemaVersion: 1 });
    expect(manifest.counts.records.tasks).toBeGreaterThan(0);
    expect(manifest.counts.listItems.sessions).toBeGreaterThan(0);
    expect(manifest.counts.files).toBeGreaterThan(0);

    const config = configSchema.parse({ ...t.config, dataDir: join(await tempDir(), "restored") });
    await restoreBackup({ location: location(config), file: archive, force: false });
    expect(await readFile(join(config.dataDir, "skills-note.txt"), "utf8")).toBe("a file beside the store");
    const restored = await Gateway.create(config, { log: captureLog([]).log });
    try {
      const url = (await restored.start()).url;
      const tasks = await restored.feature(schedulerFeature)!.scheduler!.list({ kind: "operator" }, { everyone: true });
      expect(tasks.map((task) => task.name)).toEqual(["water the plants"]);
      const memories = await restored.feature(memoryFeature)!.memory!.engine.list({ kind: "user", channel: "api", userId: "alice" });
      expect(memories.map((m) => m.content)).toEqual(["prefers green tea"]);
      const reply = await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chatId: "history", userId: "alice", text: "what is my cat called?" }),
      });
      expect(reply.status).toBe(200);
      expect(userTextsOf(t.fake.requests.at(-1)!).join("\n")).toContain("my cat is called Miso");
    } finally {
      await restored.stop();
      await t.fake.close();
    }
  });

  it("refuses a data dir that holds anything, unless forced, and a file that is not a backup", async () => {
    const t = await busyGateway();
    const archive = join(await tempDir(), "b.tar.gz");
    await writeBackup({ location: location(t.config), file: archive, version: "1.0.0" });
    await t.close();
    const dataDir = await tempDir();
    await mkdir(join(dataDir, "workspaces"));
    const target = { url: null, keyPrefix: "switchboard:", dataDir };
    await expect(restoreBackup({ location: target, file: archive, force: false })).rejects.toThrow(/is not empty; .*--force/);
    await expect(restoreBackup({ location: target, file: archive, force: true })).resolves.toMatchObject({ store: "sqlite" });
    expect((await stat(join(dataDir, "switchboard.sqlite"))).isFile()).toBe(true);

    const notArchive = join(await tempDir(), "notes.txt");
    await writeFile(notArchive, "hello");
    await expect(restoreBackup({ location: { ...target, dataDir: await tempDir() }, file: notArchive, force: false })).rejects.toBeInstanceOf(BackupRefusedError);
  });

  it("refuses to restore into the data dir of a running gateway, even forced", async () => {
    const t = await busyGateway();
    const archive = join(await tempDir(), "c.tar.gz");
    try {
      await writeBackup({ location: location(t.config), file: archive, version: "1.0.0" });
      await expect(restoreBackup({ location: location(t.config), file: archive, force: true })).rejects.toThrow(/gateway is running/);
    } finally {
      await t.close();
    }
  });
});
