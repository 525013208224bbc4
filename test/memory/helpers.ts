/** Memory over a real store (SQLite, or Redis when REDIS_URL is set), and a look at every row it keeps. */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import { timezoneRecordOf } from "../../src/handlers/profile.js";
import type { Logger } from "../../src/infra/log.js";
import { memoryConfigSchema, type MemoryConfig } from "../../src/memory/config.js";
import type { Embedder } from "../../src/memory/embeddings.js";
import { createMemory, type Memory } from "../../src/memory/index.js";
import type { Requester } from "../../src/memory/types.js";
import { ZonePreferences } from "../../src/scheduler/zone-preferences.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";
import { queryFile } from "../helpers/sqlite-file.js";

export const BACKENDS = process.env.REDIS_URL ? (["sqlite", "redis"] as const) : (["sqlite"] as const);
export type Backend = (typeof BACKENDS)[number];

export interface MemoryWorld {
  store: Store;
  memory: Memory;
  zones: ZonePreferences;
  log: Logger;
  logs: LogRecord[];
  /** Another process on the same store: a second replica, or the CLI. */
  openReplica(config?: Partial<MemoryConfig>): Promise<{ store: Store; memory: Memory }>;
  /** Every row the store holds, key and JSON value, as raw text. */
  rows(): Promise<Array<{ key: string; value: string }>>;
  close(): Promise<void>;
}

export async function openMemoryWorld(backend: Backend, config: Partial<MemoryConfig> = {}, embedder?: Embedder): Promise<MemoryWorld> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-memory-"));
  const keyPrefix = `test-memory-${randomUUID()}:`;
  const { log, logs } = captureLog([], "warn");
  const url = backend === "redis" ? process.env.REDIS_URL! : null;
  const open = () => createStore({ url, dataDir: dir, log, keyPrefix });
  const build = (store: Store, overrides: Partial<MemoryConfig>) => {
    const zones = new ZonePreferences(store, "UTC");
    const cfg = memoryConfigSchema.parse({ ...config, ...overrides });
    const memory = createMemory({ store, config: cfg, log, timezones: timezoneRecordOf(zones), ...(embedder ? { embedder } : {}) });
    return { memory, zones };
  };
  const store = await open();
  const opened: Store[] = [store];
  const { memory, zones } = build(store, {});
  return {
    store,
    memory,
    zones,
    log,
    logs,
    openReplica: async (overrides = {}) => {
      const replica = await open();
      opened.push(replica);
      return { store: replica, memory: build(replica, overrides).memory };
    },
    rows: () => (backend === "redis" ? redisRows(keyPrefix) : sqliteRows(join(dir, "switchboard.sqlite"), keyPrefix)),
    close: async () => {
      await Promise.all(opened.map((s) => s.close()));
      if (backend === "redis") await deleteRedisKeys(keyPrefix);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function sqliteRows(file: string, prefix: string): Promise<Array<{ key: string; value: string }>> {
  const rows = queryFile(file, "SELECT key, value FROM keyv WHERE key LIKE ?", `${prefix}%`);
  return rows.map((r) => ({ key: String(r.key), value: String(r.value) }));
}

function redisClient() {
  return createClient({ url: process.env.REDIS_URL! });
}

async function withRedis<T>(work: (client: ReturnType<typeof redisClient>) => Promise<T>): Promise<T> {
  const client = redisClient();
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

function redisRows(prefix: string): Promise<Array<{ key: string; value: string }>> {
  return withRedis(async (client) => {
    const rows: Array<{ key: string; value: string }> = [];
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*` })) {
      for (const key of keys) rows.push({ key, value: String(await client.get(key)) });
    }
    return rows;
  });
}

function deleteRedisKeys(prefix: string): Promise<void> {
  return withRedis(async (client) => {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*` })) if (keys.length > 0) await client.del(keys);
  });
}

export const ANN_DM: Requester = { channel: "telegram", userId: "ann", chatId: "ann", chatType: "direct" };
export const BOB_DM: Requester = { channel: "telegram", userId: "bob", chatId: "bob", chatType: "direct" };
export const ANN_IN_GROUP: Requester = { channel: "telegram", userId: "ann", chatId: "-100team", chatType: "group" };
export const BOB_IN_GROUP: Requester = { channel: "telegram", userId: "bob", chatId: "-100team", chatType: "group" };
