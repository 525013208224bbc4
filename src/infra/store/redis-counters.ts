/**
 * Counters shared by replicas: a rate window is one hash (its start and count, changed by one script); a slot pool is a
 * sorted set of `<holder>\n<claim id>` scored by lease deadline (Redis server time), purged of expired claims at
 * each claim, so slots of a replica that died free themselves.
 */
import { randomUUID } from "node:crypto";
import type { RedisClientType } from "@keyv/redis";
import type { Logger } from "../log.js";
import type { SharedCounters } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { keepLeaseAlive } from "./lease-keeper.js";
import { DEFAULT_LEASE_MS, requireDuration, requireKey } from "./checks.js";

/** ARGV: window ms, now (the caller's clock). The window's start and count are one hash. */
const COUNT_SCRIPT = `local window, now = tonumber(ARGV[1]), tonumber(ARGV[2])
local start = tonumber(redis.call("hget", KEYS[1], "start"))
local count = 1
if start == nil or now - start >= window then
  start = now
  redis.call("hset", KEYS[1], "start", ARGV[2], "count", 1)
else
  count = redis.call("hincrby", KEYS[1], "count", 1)
end
redis.call("pexpire", KEYS[1], math.max(1, start + window - now))
return count`;
const NOW_MS = `local t = redis.call("time") local now = t[1] * 1000 + math.floor(t[2] / 1000)`;
/** ARGV: holder, max, claim id, lease ms. 1 when claimed, 0 when the pool is full. */
const CLAIM_SCRIPT = `${NOW_MS}
redis.call("zremrangebyscore", KEYS[1], "-inf", now)
local holders, count, mine = {}, 0, false
for _, member in ipairs(redis.call("zrange", KEYS[1], 0, -1)) do
  local holder = string.match(member, "^(.*)\\n")
  if holder == ARGV[1] then mine = true end
  if not holders[holder] then holders[holder] = true count = count + 1 end
end
if not mine and count >= tonumber(ARGV[2]) then return 0 end
redis.call("zadd", KEYS[1], now + tonumber(ARGV[4]), ARGV[1] .. "\\n" .. ARGV[3])
redis.call("pexpire", KEYS[1], ARGV[4])
return 1`;
/** ARGV: member, lease ms. */
const RENEW_SCRIPT = `${NOW_MS}
if not redis.call("zscore", KEYS[1], ARGV[1]) then return 0 end
redis.call("zadd", KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call("pexpire", KEYS[1], ARGV[2])
return 1`;

export class RedisCounters implements SharedCounters {
  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly keyPrefix: string,
    private readonly log: Logger,
  ) {}

  async countInWindow(key: string, windowMs: number, now: number): Promise<number> {
    requireKey(key, "countInWindow");
    requireDuration(windowMs, "windowMs", `countInWindow "${key}"`);
    const reply = await this.guard.run("count", `window:${key}`, () =>
      this.client.eval(COUNT_SCRIPT, { keys: [`${this.keyPrefix}window:${key}`], arguments: [String(windowMs), String(Math.round(now))] }),
    );
    return Number(reply);
  }

  async windowCount(key: string, windowMs: number, now: number): Promise<number> {
    requireKey(key, "windowCount");
    const [start, count] = await this.guard.run("count", `window:${key}`, () => this.client.hmGet(`${this.keyPrefix}window:${key}`, ["start", "count"]));
    if (start === null || start === undefined || now - Number(start) >= windowMs) return 0;
    return Number(count ?? 0);
  }

  async claimSlot(pool: string, holder: string, max: number, opts?: { leaseMs?: number }): Promise<(() => Promise<void>) | null> {
    requireKey(pool, "claimSlot");
    if (holder.includes("\n")) throw new TypeError(`claimSlot "${pool}": the holder must not contain a line break`);
    const leaseMs = opts?.leaseMs ?? DEFAULT_LEASE_MS;
    requireDuration(leaseMs, "leaseMs", `claimSlot "${pool}"`);
    const poolKey = `${this.keyPrefix}slots:${pool}`;
    const member = `${holder}\n${randomUUID()}`;
    const eval_ = (operation: string, script: string, args: string[]) =>
      this.guard.run(operation, `slots:${pool}`, () => this.client.eval(script, { keys: [poolKey], arguments: args }));
    const claimed = await eval_("claim slot", CLAIM_SCRIPT, [holder, String(max), member.slice(holder.length + 1), String(leaseMs)]);
    if (claimed !== 1) return null;
    const keeper = keepLeaseAlive({ pool, holder }, leaseMs, async () => (await eval_("renew slot", RENEW_SCRIPT, [member, String(leaseMs)])) === 1, this.log);
    let released: Promise<void> | undefined;
    return () => {
      released ??= keeper.stop().then(async () => {
        await eval_("release slot", `return redis.call("zrem", KEYS[1], ARGV[1])`, [member]).catch((err: unknown) =>
          this.log.warn({ err, pool, holder }, "slot release failed; it frees itself with its lease"),
        );
      });
      return released;
    };
  }
}
