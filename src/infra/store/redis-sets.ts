/**
 * Entry sets on Redis: one hash per set, a field per entry holding `<seq>\n<expires>\n<json>`, where seq (from a
 * counter beside the hash) keeps the order entries were added in and expires (Redis server time, empty for none)
 * their TTL. Each operation is one script, so it is atomic across replicas without a lock. A set whose entries all
 * have TTLs lives until the longest runs out; reading it deletes the expired ones.
 */
import type { RedisClientType } from "@keyv/redis";
import type { EntrySets } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireDuration, requireSetEntry } from "./checks.js";

const NOW_MS = `local t = redis.call("time") local now = t[1] * 1000 + math.floor(t[2] / 1000)`;
const LIVE = `local function live(stored)
  local expires = string.match(stored, "^[^\\n]*\\n([^\\n]*)\\n")
  return expires == "" or tonumber(expires) >= now
end`;
/**
 * KEYS: hash, counter. ARGV: id, json, ttl ms ("" for none). 1 when added, 0 when a live entry has the id. The
 * set's own expiry only ever moves later: to the new entry's TTL when that is longer, never when an entry without a
 * TTL is in it.
 */
const ADD_SCRIPT = `${NOW_MS}
${LIVE}
local old = redis.call("hget", KEYS[1], ARGV[1])
if old and live(old) then return 0 end
local left = redis.call("pttl", KEYS[1])
local seq = redis.call("incr", KEYS[2])
local expires = ""
if ARGV[3] ~= "" then expires = tostring(now + tonumber(ARGV[3])) end
redis.call("hset", KEYS[1], ARGV[1], seq .. "\\n" .. expires .. "\\n" .. ARGV[2])
if ARGV[3] == "" then
  redis.call("persist", KEYS[1])
  redis.call("persist", KEYS[2])
elseif left == -2 or (left >= 0 and left < tonumber(ARGV[3])) then
  redis.call("pexpire", KEYS[1], ARGV[3])
  redis.call("pexpire", KEYS[2], ARGV[3])
end
return 1`;
/** KEYS: hash. ARGV: id, json. 1 when replaced (its seq and expiry kept), 0 when no live entry has the id. */
const REPLACE_SCRIPT = `${NOW_MS}
${LIVE}
local old = redis.call("hget", KEYS[1], ARGV[1])
if not old or not live(old) then return 0 end
redis.call("hset", KEYS[1], ARGV[1], string.match(old, "^[^\\n]*\\n[^\\n]*\\n") .. ARGV[2])
return 1`;
/** KEYS: hash. The live entries' stored text; expired ones are deleted on the way. */
const ALL_SCRIPT = `${NOW_MS}
${LIVE}
local out, fields = {}, redis.call("hgetall", KEYS[1])
for i = 1, #fields, 2 do
  if live(fields[i + 1]) then out[#out + 1] = fields[i + 1] else redis.call("hdel", KEYS[1], fields[i]) end
end
return out`;

export class RedisSets<T> implements EntrySets<T> {
  /** `prefix`: what the store puts before every key of this namespace's sets. */
  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly name: string,
    private readonly prefix: string,
  ) {}

  async add(key: string, id: string, entry: T, ttlMs?: number): Promise<boolean> {
    const hash = this.#hash(key, id);
    if (ttlMs !== undefined) requireDuration(ttlMs, "ttlMs", `store set add ${this.name}:${key}`);
    const reply = await this.guard.run("set add", `${this.name}:${key}`, () =>
      this.client.eval(ADD_SCRIPT, { keys: [hash, `${hash}#seq`], arguments: [id, JSON.stringify(entry), ttlMs === undefined ? "" : String(ttlMs)] }),
    );
    return reply === 1;
  }

  async replace(key: string, id: string, entry: T): Promise<boolean> {
    const hash = this.#hash(key, id);
    const reply = await this.guard.run("set replace", `${this.name}:${key}`, () =>
      this.client.eval(REPLACE_SCRIPT, { keys: [hash], arguments: [id, JSON.stringify(entry)] }),
    );
    return reply === 1;
  }

  async remove(key: string, id: string): Promise<void> {
    const hash = this.#hash(key, id);
    await this.guard.run("set remove", `${this.name}:${key}`, () => this.client.hDel(hash, id));
  }

  async all(key: string): Promise<T[]> {
    const hash = this.#hash(key);
    const stored = (await this.guard.run("set read", `${this.name}:${key}`, () => this.client.eval(ALL_SCRIPT, { keys: [hash] }))) as string[];
    return stored
      .map((text) => {
        const [seq, , ...json] = text.split("\n");
        return { seq: Number(seq), json: json.join("\n") };
      })
      .sort((a, b) => a.seq - b.seq)
      .map(({ json }) => JSON.parse(json) as T);
  }

  #hash(key: string, id?: string): string {
    requireSetEntry(this.name, key, id);
    return this.prefix + key;
  }
}
