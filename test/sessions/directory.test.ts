import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createStore } from "../../src/infra/store/index.js";
import type { Namespace, NamespaceName, Store } from "../../src/infra/store/types.js";
import { SessionDirectory } from "../../src/sessions/directory.js";

const log = pino({ level: "silent" });
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function sqliteStore(): Promise<Store> {
  const store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-directory-")), log });
  stores.push(store);
  return store;
}

/** The store, with its next `failures` writes refused. */
function refusingWrites(store: Store, failures: { left: number }): Store {
  return {
    backend: store.backend,
    coordinator: store.coordinator,
    bus: store.bus,
    lists: (name) => store.lists(name),
    sets: (name) => store.sets(name),
    tallies: (name) => store.tallies(name),
    write: (change) => (failures.left-- > 0 ? Promise.reject(new Error("disk full")) : store.write(change)),
    ping: () => store.ping(),
    close: () => store.close(),
    namespace: <T>(name: NamespaceName): Namespace<T> => {
      const real = store.namespace<T>(name);
      // Only the list's own record is refused; the chats' records are another namespace.
      if (name !== "sessions") return real;
      return {
        get: (key) => real.get(key),
        delete: (key) => real.delete(key),
        set: (key, value, ttl) => (failures.left-- > 0 ? Promise.reject(new Error("disk full")) : real.set(key, value, ttl)),
        setMany: (entries) => (failures.left-- > 0 ? Promise.reject(new Error("disk full")) : real.setMany(entries)),
      };
    },
  };
}

const entry = (key: string, text: string) => ({ key, channel: "web", chatId: key, chatType: "direct" as const, userId: "u", text });

describe("session directory", () => {
  it("writes touches together, newest first, and a new directory over the same store reads them", async () => {
    const store = await sqliteStore();
    const directory = new SessionDirectory(store);
    directory.touch(entry("web:a", "first"), 1);
    directory.touch(entry("web:b", "second"), 2);
    directory.touch(entry("web:a", "third"), 3);
    await directory.flush();

    const entries = await new SessionDirectory(store).list();
    expect(entries.map((e) => [e.key, e.preview])).toEqual([
      ["web:a", "third"],
      ["web:b", "second"],
    ]);
  });

  it("keeps touches the store refused and writes them with the next write, a newer touch winning", async () => {
    const store = await sqliteStore();
    const failures = { left: 1 };
    const directory = new SessionDirectory(refusingWrites(store, failures));
    directory.touch(entry("web:a", "a, refused"), 1);
    directory.touch(entry("web:b", "b, refused"), 2);
    await expect(directory.flush()).rejects.toThrow(/disk full/);

    directory.touch(entry("web:a", "a, again"), 3);
    await directory.flush();
    expect((await new SessionDirectory(store).list()).map((e) => [e.key, e.preview])).toEqual([
      ["web:a", "a, again"],
      ["web:b", "b, refused"],
    ]);
  });

  it("knows a chat once a message came from it, also to a new directory over the same store", async () => {
    const store = await sqliteStore();
    const directory = new SessionDirectory(store);
    expect(await directory.isKnownChat("web", "web:a")).toBe(false);
    await directory.touch(entry("web:a", "hello"), 1);
    expect(await directory.isKnownChat("web", "web:a")).toBe(true);
    expect(await new SessionDirectory(store).isKnownChat("web", "web:a")).toBe(true);
    expect(await new SessionDirectory(store).isKnownChat("telegram", "web:a")).toBe(false);
  });
});
