import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createStore, StoreError, type Store } from "../../../src/infra/store/index.js";
import { KeyedMutex } from "../../../src/infra/store/keyed-mutex.js";
import { LocalCoordinator } from "../../../src/infra/store/local-coordinator.js";
import { CachedNamespace } from "../../../src/infra/store/cached-namespace.js";
import { captureLog, deferred, storeContract, until } from "./store-contract.js";
import { queryFile } from "../../helpers/sqlite-file.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-store-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("SQLite store: the store contract", () => {
  storeContract(async () => {
    const dataDir = await tempDir();
    return { open: () => createStore({ url: null, dataDir, log: captureLog().log }) };
  });
});

describe("SQLite store: files and rows", () => {
  it.each([null, "sqlite://"])("url %s: creates <dataDir>/switchboard.sqlite, making the directory", async (url) => {
    const dataDir = join(await tempDir(), "nested", "data");
    const store = await createStore({ url, dataDir, log: captureLog().log });
    await store.close();
    expect((await stat(join(dataDir, "switchboard.sqlite"))).isFile()).toBe(true);
    expect(store.backend).toBe("sqlite");
  });

  it("uses the file named by sqlite://PATH", async () => {
    const file = join(await tempDir(), "elsewhere", "custom.db");
    const store = await createStore({ url: `sqlite://${file}`, dataDir: "/nonexistent", log: captureLog().log });
    await store.namespace<string>("meta").set("k", "v");
    await store.close();
    expect(queryFile(file, "SELECT key FROM keyv")).toEqual([{ key: "switchboard:meta:k" }]);
  });

  it("deletes expired rows that nobody reads again when it opens", async () => {
    const dataDir = await tempDir();
    const open = () => createStore({ url: null, dataDir, log: captureLog().log });
    const first = await open();
    await first.namespace<string>("dedup").set("old", "x", 50);
    await first.namespace<string>("dedup").set("kept", "y");
    expect(await first.coordinator.setIfAbsent("once", 50)).toBe(true);
    const expiredAfter = Date.now() + 50;
    await first.close();
    await until("the entries to pass their expiry", () => Date.now() > expiredAfter);
    await (await open()).close();
    const rows = queryFile(join(dataDir, "switchboard.sqlite"), "SELECT key FROM keyv ORDER BY key");
    expect(rows).toEqual([{ key: "switchboard:dedup:kept" }]);
  });

  it("reports a corrupt row with its namespace and key, and still serves the others", async () => {
    const dataDir = await tempDir();
    const file = join(dataDir, "switchboard.sqlite");
    const first = await createStore({ url: null, dataDir, log: captureLog().log });
    await first.namespace<string>("sessions").set("good", "fine");
    await first.close();
    queryFile(file, "INSERT INTO keyv (key, value) VALUES (?, ?)", "switchboard:sessions:bad", "{not json");
    const store = await createStore({ url: null, dataDir, log: captureLog().log });
    try {
      const sessions = store.namespace<string>("sessions");
      await expect(sessions.get("bad")).rejects.toThrow(StoreError);
      await expect(sessions.get("bad")).rejects.toThrow(/store get sessions:bad failed/);
      expect(await sessions.get("good")).toBe("fine");
    } finally {
      await store.close();
    }
  });

  it("fails clearly when the data directory cannot be created", async () => {
    const blocker = join(await tempDir(), "a-file");
    await writeFile(blocker, "not a directory");
    const opening = createStore({ url: null, dataDir: join(blocker, "data"), log: captureLog().log });
    await expect(opening).rejects.toThrow(StoreError);
    await expect(opening).rejects.toThrow(/cannot create the directory/);
  });

  it("fails clearly when the file cannot be opened as a database", async () => {
    const dir = await tempDir();
    const opening = createStore({ url: `sqlite://${dir}`, dataDir: dir, log: captureLog().log });
    await expect(opening).rejects.toThrow(/store open .* failed/);
  });

  it("refuses a URL of another kind", async () => {
    const dataDir = await tempDir();
    await expect(
      createStore({ url: "postgres://user:hunter2pass@db/x", dataDir, log: captureLog().log }),
    ).rejects.toThrow(/must start with sqlite:\/\/, redis:\/\/ or rediss:\/\/$/);
  });
});

describe("KeyedMutex", () => {
  it("runs callers of one key one at a time, in arrival order, and forgets idle keys", async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const gate = deferred();
    const first = mutex.run("k", async () => {
      order.push("first");
      await gate.promise;
    });
    const second = mutex.run("k", async () => void order.push("second"));
    const other = mutex.run("other", async () => void order.push("other"));
    await other;
    expect(order).toEqual(["first", "other"]);
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "other", "second"]);
    await until("idle keys to be dropped", () => mutex.activeKeys === 0);
  });

  it("a waiter that times out does not let the next caller in before the holder is done", async () => {
    const mutex = new KeyedMutex();
    const gate = deferred();
    let holderDone = false;
    const holder = mutex.run("k", async () => {
      await gate.promise;
      holderDone = true;
    });
    await expect(mutex.run("k", async () => "never", 20)).rejects.toThrow(/lock "k" was not acquired within 20 ms/);
    const next = mutex.run("k", async () => holderDone);
    gate.resolve();
    await holder;
    expect(await next).toBe(true);
    await until("idle keys to be dropped", () => mutex.activeKeys === 0);
  });
});

describe("LocalCoordinator", () => {
  it("leaves no lock entries behind after heavy use", async () => {
    let store: Store | undefined;
    try {
      store = await createStore({ url: null, dataDir: await tempDir(), log: captureLog().log });
      const coordinator = new LocalCoordinator(store.namespace<1>("meta"));
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          Promise.all([
            coordinator.withLock(`chat-${i % 7}`, async () => i),
            coordinator.setIfAbsent(`msg-${i % 13}`, 60_000),
          ]),
        ),
      );
      await until("idle keys to be dropped", () => coordinator.activeLocks === 0);
    } finally {
      await store?.close();
    }
  });
});

describe("cached namespace on SQLite: bounds", () => {
  it("reads the store again once an entry's TTL ran out (a writer off the bus, the CLI), and keeps at most `max` entries", async () => {
    const dataDir = await tempDir();
    const gateway = await createStore({ url: null, dataDir, log: captureLog().log });
    const cli = await createStore({ url: null, dataDir, log: captureLog().log });
    try {
      let clock = 1_000;
      const cached = new CachedNamespace(gateway.namespace<string>("tasks"), gateway.bus, { topic: "test.bounds", ttlMs: 30_000, max: 2 }, () => clock);
      await cli.namespace<string>("tasks").set("zone:a", "Asia/Tokyo");
      expect(await cached.get("zone:a")).toBe("Asia/Tokyo");
      await cli.namespace<string>("tasks").set("zone:a", "Europe/Paris");
      clock += 29_999;
      expect(await cached.get("zone:a")).toBe("Asia/Tokyo");
      clock += 1;
      expect(await cached.get("zone:a")).toBe("Europe/Paris");
      // Two more keys push the oldest entry out: the next read of it goes to the store again.
      await cached.get("zone:b");
      await cached.get("zone:c");
      await cli.namespace<string>("tasks").set("zone:a", "America/Lima");
      expect(await cached.get("zone:a")).toBe("America/Lima");
    } finally {
      await cli.close();
      await gateway.close();
    }
  });

  it("lets go of entries whose TTL ran out, so it holds the keys read lately rather than `max` of them", async () => {
    const store = await createStore({ url: null, dataDir: await tempDir(), log: captureLog().log });
    try {
      let clock = 1_000;
      const cached = new CachedNamespace(store.namespace<string>("tasks"), store.bus, { topic: "test.expiry", ttlMs: 30_000, max: 100 }, () => clock);
      for (const key of ["a", "b", "c"]) await cached.get(key);
      clock += 20_000;
      await cached.get("d");
      expect(cached.size).toBe(4);
      // a, b and c expire; d, read 20 s later, does not yet.
      clock += 10_000;
      await cached.get("e");
      expect(cached.size).toBe(2);
      await store.namespace<string>("tasks").set("d", "Asia/Tokyo");
      expect(await cached.get("d")).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe("SQLite store: reads and writes asked for together", () => {
  it("stores a write asked for just before close", async () => {
    const dataDir = await tempDir();
    const first = await createStore({ url: null, dataDir, log: captureLog().log });
    const written = first.namespace<string>("meta").set("last", "words");
    await first.close();
    await written;
    const second = await createStore({ url: null, dataDir, log: captureLog().log });
    try {
      expect(await second.namespace<string>("meta").get("last")).toBe("words");
    } finally {
      await second.close();
    }
  });

  it("answers each of many concurrent reads and writes, across namespaces, repeated and missing keys, as asked", async () => {
    const store = await createStore({ url: null, dataDir: await tempDir(), log: captureLog().log });
    try {
      const sessions = store.namespace<number>("sessions");
      const memory = store.namespace<string>("memory");
      await sessions.setMany(Array.from({ length: 300 }, (_, i) => ({ key: `s${i}`, value: i })));
      await memory.set("profile", "kept");
      const [numbers, profile, again, missing] = await Promise.all([
        Promise.all(Array.from({ length: 300 }, (_, i) => sessions.get(`s${299 - i}`))),
        memory.get("profile"),
        memory.get("profile"),
        memory.get("s1"),
      ]);
      expect(numbers).toEqual(Array.from({ length: 300 }, (_, i) => 299 - i));
      expect([profile, again, missing]).toEqual(["kept", "kept", undefined]);
      // A write that finished before a read was asked for is what the read sees, in the same turn as others.
      await memory.set("profile", "changed");
      expect(await Promise.all([memory.get("profile"), sessions.get("s0")])).toEqual(["changed", 0]);
      // Writes of one turn: each resolves once stored; of two writes of one key, the later one is kept.
      await Promise.all([...Array.from({ length: 200 }, (_, i) => sessions.set(`s${i}`, -i - 1)), memory.set("profile", "first"), memory.set("profile", "second")]);
      expect(await Promise.all(Array.from({ length: 200 }, (_, i) => sessions.get(`s${i}`)))).toEqual(Array.from({ length: 200 }, (_, i) => -i - 1));
      expect(await memory.get("profile")).toBe("second");
      await expect(Promise.all([memory.set("bad", 1n as unknown as string), memory.set("fine", "kept")])).rejects.toThrow(/bad/);
      expect(await memory.get("fine")).toBe("kept");
    } finally {
      await store.close();
    }
  });
});
