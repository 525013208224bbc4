/**
 * The gateway's keys on Redis read out and written back, as plain values by type (not DUMP, whose format only
 * Redis of the same or a newer version restores): one JSON line per key, with its remaining time to live. Each key
 * is read in one round trip, so it is whole; the keys are not all read at one instant (Redis has no snapshot
 * short of its own RDB), which the gateway's records tolerate as they tolerate a crash between two writes.
 */
import type { RedisClientType } from "@keyv/redis";
import { z } from "zod";
import { namespaceOf, type SqliteRows } from "./sqlite-snapshot.js";

/** Commands per MULTI when writing. */
const WRITE_BATCH = 500;
const SCAN_COUNT = 500;

export const redisKeySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("string"), key: z.string(), ttlMs: z.number().nullable(), value: z.string() }),
  z.object({ type: z.literal("list"), key: z.string(), ttlMs: z.number().nullable(), value: z.array(z.string()) }),
  z.object({ type: z.literal("hash"), key: z.string(), ttlMs: z.number().nullable(), value: z.record(z.string(), z.string()) }),
  z.object({ type: z.literal("zset"), key: z.string(), ttlMs: z.number().nullable(), value: z.array(z.object({ value: z.string(), score: z.number() })) }),
]);
export type RedisKey = z.infer<typeof redisKeySchema>;

/** Every key under `keyPrefix`, one at a time; `onKey` sees each (a key deleted while scanning is left out). */
export async function readRedisKeys(client: RedisClientType, keyPrefix: string, onKey: (key: RedisKey) => Promise<void>): Promise<void> {
  for await (const keys of client.scanIterator({ MATCH: `${escapeGlob(keyPrefix)}*`, COUNT: SCAN_COUNT })) {
    for (const key of keys) {
      const read = await readKey(client, key);
      if (read) await onKey(read);
    }
  }
}

async function readKey(client: RedisClientType, key: string): Promise<RedisKey | null> {
  const type = await client.type(key);
  const [value, pttl] = await (() => {
    const multi = client.multi();
    if (type === "string") multi.get(key);
    else if (type === "list") multi.lRange(key, 0, -1);
    else if (type === "hash") multi.hGetAll(key);
    else if (type === "zset") multi.zRangeWithScores(key, 0, -1);
    else return Promise.resolve([null, -2]);
    return multi.pTTL(key).exec();
  })();
  if (value === null || value === undefined || Number(pttl) === -2) return null;
  return redisKeySchema.parse({ type, key, ttlMs: Number(pttl) >= 0 ? Number(pttl) : null, value });
}

/** Writes keys in batches, each key replacing whatever had its name; `rename` maps the stored name to the target's. */
export class RedisKeyWriter {
  #multi: ReturnType<RedisClientType["multi"]>;
  #queued = 0;
  written = 0;

  constructor(private readonly client: RedisClientType) {
    this.#multi = client.multi();
  }

  async write(entry: RedisKey): Promise<void> {
    const multi = this.#multi;
    multi.del(entry.key);
    if (entry.type === "string") multi.set(entry.key, entry.value);
    else if (entry.type === "list") multi.rPush(entry.key, entry.value);
    else if (entry.type === "hash") multi.hSet(entry.key, entry.value);
    else multi.zAdd(entry.key, entry.value);
    if (entry.ttlMs !== null) multi.pExpire(entry.key, Math.max(1, entry.ttlMs));
    this.written++;
    this.#queued += 3;
    if (this.#queued >= WRITE_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#queued === 0) return;
    const multi = this.#multi;
    this.#multi = this.client.multi();
    this.#queued = 0;
    await multi.exec();
  }
}

/** Whether any key starts with `keyPrefix`. */
export async function anyRedisKey(client: RedisClientType, keyPrefix: string): Promise<boolean> {
  for await (const keys of client.scanIterator({ MATCH: `${escapeGlob(keyPrefix)}*`, COUNT: SCAN_COUNT })) if (keys.length > 0) return true;
  return false;
}

export async function deleteRedisKeys(client: RedisClientType, keyPrefix: string): Promise<void> {
  for await (const keys of client.scanIterator({ MATCH: `${escapeGlob(keyPrefix)}*`, COUNT: SCAN_COUNT })) if (keys.length > 0) await client.del(keys);
}

/** `key` moved from one prefix to another. */
export function renamePrefix(key: string, from: string, to: string): string {
  return key.startsWith(from) ? to + key.slice(from.length) : key;
}

/**
 * A SQLite store's rows as the Redis backend keeps them (see redis-store.ts, redis-lists.ts, redis-sets.ts and the
 * coordinator's once-only markers): records as the same JSON under the same keys, lists under `lists:`, entry sets
 * as hashes under `sets:` with their order and expiry in each field. Expired rows are left behind. Answers how many
 * rows of another prefix were skipped.
 */
export async function copySqliteRowsToRedis(rows: SqliteRows, writer: RedisKeyWriter, from: string, to: string): Promise<{ skipped: number }> {
  const now = Date.now();
  let skipped = 0;
  const within = (key: string, kind: string): string | null => {
    if (namespaceOf(key, from) === null) {
      skipped++;
      return null;
    }
    return `${to}${kind}${key.slice(from.length)}`;
  };
  for (const { key, value } of rows.records) {
    const target = within(key, "");
    if (target === null) continue;
    const expires = (JSON.parse(value) as { expires?: number }).expires;
    if (expires !== undefined && expires <= now) continue;
    const once = namespaceOf(key, from) === "once";
    await writer.write({ type: "string", key: target, value: once ? "1" : value, ttlMs: expires === undefined ? null : expires - now });
  }
  for (const [list, items] of grouped(rows.listItems, (item) => item.list)) {
    const target = within(list, "lists:");
    if (target !== null) await writer.write({ type: "list", key: target, value: items.map((item) => item.value), ttlMs: null });
  }
  for (const [setKey, entries] of grouped(rows.setEntries, (entry) => entry.setKey)) {
    const target = within(setKey, "sets:");
    const live = entries.filter((entry) => entry.expires === null || entry.expires > now);
    if (target === null || live.length === 0) continue;
    const fields = Object.fromEntries(live.map((entry, i) => [entry.id, `${i + 1}\n${entry.expires ?? ""}\n${entry.value}`]));
    // As RedisSets keeps it: the set lives until its longest entry runs out, or for good when one has no TTL.
    const ttlMs = live.some((entry) => entry.expires === null) ? null : Math.max(...live.map((entry) => entry.expires!)) - now;
    await writer.write({ type: "hash", key: target, value: fields, ttlMs });
    await writer.write({ type: "string", key: `${target}#seq`, value: String(live.length), ttlMs });
  }
  await writer.flush();
  return { skipped };
}

/** Consecutive rows with the same group, as [group, rows]; the rows come ordered by group. */
function* grouped<T>(rows: Iterable<T>, groupOf: (row: T) => string): Generator<[string, T[]]> {
  let current: string | null = null;
  let members: T[] = [];
  for (const row of rows) {
    const group = groupOf(row);
    if (group !== current) {
      if (current !== null) yield [current, members];
      current = group;
      members = [];
    }
    members.push(row);
  }
  if (current !== null) yield [current, members];
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
