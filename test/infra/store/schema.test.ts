import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Gateway } from "../../../src/app.js";
import { configSchema } from "../../../src/config.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { prepareSchema, schemaVersion, SCHEMA_KEY, STORE_MIGRATIONS, STORE_SCHEMA_VERSION, StoreSchemaError, type StoreMigration } from "../../../src/infra/store/schema.js";
import { captureLog } from "../../helpers/captured-log.js";

const dirs: string[] = [];
const stores: Store[] = [];
async function openStore(dataDir?: string): Promise<{ store: Store; dataDir: string }> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "switchboard-schema-")));
  if (!dataDir) dirs.push(dir);
  const store = await createStore({ url: null, dataDir: dir, log: captureLog([]).log });
  stores.push(store);
  return { store, dataDir: dir };
}
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("the store schema version", () => {
  it("is recorded on a fresh store, and a migration runs once however often the store is prepared", async () => {
    const { store } = await openStore();
    expect(await schemaVersion(store)).toBe(0);
    let runs = 0;
    const second: StoreMigration = {
      version: 2,
      describe: "renames a record",
      up: async (s) => {
        runs++;
        await s.namespace<string>("meta").set("renamed", "yes");
      },
    };
    const { log } = captureLog([]);
    expect(await prepareSchema(store, log, [...STORE_MIGRATIONS, second])).toBe(2);
    expect(await prepareSchema(store, log, [...STORE_MIGRATIONS, second])).toBe(2);
    expect(runs).toBe(1);
    expect(await schemaVersion(store)).toBe(2);
    expect(await store.namespace<string>("meta").get("renamed")).toBe("yes");
  });

  it("a migration that fails leaves the version before it, so the next start runs it again", async () => {
    const { store } = await openStore();
    const { log } = captureLog([]);
    let fail = true;
    const flaky: StoreMigration = {
      version: 2,
      describe: "fails once",
      up: async () => {
        if (fail) throw new Error("disk full");
      },
    };
    await expect(prepareSchema(store, log, [...STORE_MIGRATIONS, flaky])).rejects.toThrow("disk full");
    expect(await schemaVersion(store)).toBe(1);
    fail = false;
    expect(await prepareSchema(store, log, [...STORE_MIGRATIONS, flaky])).toBe(2);
  });

  it("a store written by a newer version is refused, and the gateway does not start on it", async () => {
    const { store, dataDir } = await openStore();
    await store.namespace("meta").set(SCHEMA_KEY, { version: STORE_SCHEMA_VERSION + 1 });
    await expect(prepareSchema(store, captureLog([]).log)).rejects.toBeInstanceOf(StoreSchemaError);
    await store.close();

    const config = configSchema.parse({ dataDir, http: { port: 0 } });
    await expect(Gateway.create(config, { log: captureLog([]).log })).rejects.toThrow(/schema version 2, written by a newer switchboard; this one knows up to 1/);
    // Refused before it changed anything: the record is still the newer version's.
    const reopened = (await openStore(dataDir)).store;
    expect(await schemaVersion(reopened)).toBe(STORE_SCHEMA_VERSION + 1);
  });

  it("migrations must be numbered one after another", async () => {
    const { store } = await openStore();
    await expect(prepareSchema(store, captureLog([]).log, [{ version: 2, describe: "gap", up: async () => undefined }])).rejects.toThrow(/has version 2; expected 1/);
  });
});
