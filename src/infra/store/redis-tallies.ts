/**
 * Tallies on Redis: one hash per key, a field per sum (HINCRBYFLOAT), the key's expiry moved at each change. An
 * addition is one script over every key it touches or checks, so a bounded one is atomic across replicas.
 */
import type { RedisClientType } from "@keyv/redis";
import type { Tallies, TallyBound, TallyChange } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireTallies } from "./checks.js";

/**
 * ARGV[1]: JSON `{changes: [{k, a: {field: amount}, t}], bounds: [{k, f, l}]}`, k indexing KEYS. Answers 1 or 0
 * (added or not), then each bound's sum as text (a Lua number would come back cut to an integer).
 */
const ADD_SCRIPT = `local spec = cjson.decode(ARGV[1])
local function sums()
  local out = {}
  for i, b in ipairs(spec.bounds) do out[i] = tonumber(redis.call("hget", KEYS[b.k], b.f)) or 0 end
  return out
end
local before = sums()
for i, b in ipairs(spec.bounds) do
  if before[i] >= b.l then
    local reply = {0}
    for j, s in ipairs(before) do reply[j + 1] = tostring(s) end
    return reply
  end
end
for _, c in ipairs(spec.changes) do
  for f, a in pairs(c.a) do redis.call("hincrbyfloat", KEYS[c.k], f, tostring(a)) end
  redis.call("pexpire", KEYS[c.k], c.t)
end
local reply = {1}
for j, s in ipairs(sums()) do reply[j + 1] = tostring(s) end
return reply`;

export class RedisTallies implements Tallies {
  /** `prefix`: what the store puts before every key of this namespace's tallies. */
  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly name: string,
    private readonly prefix: string,
  ) {}

  async add(changes: readonly TallyChange[]): Promise<void> {
    await this.addWithin(changes, []);
  }

  async addWithin(changes: readonly TallyChange[], bounds: readonly TallyBound[]): Promise<{ added: boolean; sums: number[] }> {
    requireTallies(this.name, changes, bounds);
    const keys: string[] = [];
    const index = (key: string): number => {
      const at = keys.indexOf(key);
      return (at === -1 ? keys.push(key) : at + 1);
    };
    // A bound with no limit left (Infinity) is no bound: JSON cannot carry it.
    const spec = {
      changes: changes.map(({ key, amounts, ttlMs }) => ({ k: index(key), a: amounts, t: ttlMs })),
      bounds: bounds.map(({ key, field, limit }) => ({ k: index(key), f: field, l: Number.isFinite(limit) ? limit : Number.MAX_VALUE })),
    };
    // cjson decodes an empty object as an empty table, which is all the script needs of it.
    const reply = (await this.guard.run("tally add", `${this.name}:${keys.join(",")}`, () =>
      this.client.eval(ADD_SCRIPT, { keys: keys.map((key) => this.prefix + key), arguments: [JSON.stringify(spec)] }),
    )) as Array<number | string>;
    return { added: reply[0] === 1, sums: reply.slice(1).map(Number) };
  }

  async read(keys: readonly string[]): Promise<Array<Record<string, number>>> {
    const hashes = await this.guard.run("tally read", `${this.name}:${keys.join(",")}`, () =>
      Promise.all(keys.map((key) => this.client.hGetAll(this.prefix + key))),
    );
    return hashes.map((hash) => Object.fromEntries(Object.entries(hash as Record<string, string>).map(([field, sum]) => [field, Number(sum)])));
  }
}
