/**
 * Leases with fencing and presence on Redis, each one Lua script so that the check and the act are atomic.
 * A lease key holds "<token>|<holder>"; the token comes from INCR on a counter that never expires, so every grant
 * of a key has a higher token than all before it. Presence is a sorted set scored by expiry (Redis's own clock,
 * so replicas on hosts with skewed clocks agree) plus a hash of each member's info; expired members are removed
 * when the group is listed (the two keys themselves are not expired: they stay as small as the live group).
 */
import type { RedisClientType } from "@keyv/redis";
import type { BackendGuard } from "./backend-guard.js";
import type { LeaseGrant, Leases, Presence } from "./types.js";
import { checkLease, requireDuration, requireKey } from "./checks.js";

const ACQUIRE_SCRIPT = `
local current = redis.call("get", KEYS[1])
if current then
  local sep = string.find(current, "|", 1, true)
  if string.sub(current, sep + 1) == ARGV[1] then
    redis.call("pexpire", KEYS[1], ARGV[2])
    return tonumber(string.sub(current, 1, sep - 1))
  end
  return false
end
local token = redis.call("incr", KEYS[2])
redis.call("set", KEYS[1], token .. "|" .. ARGV[1], "PX", ARGV[2])
return token`;
const RENEW_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const NOW_MS = `local t = redis.call("time") local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const ANNOUNCE_SCRIPT = `${NOW_MS}
redis.call("zadd", KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call("hset", KEYS[2], ARGV[1], ARGV[3])
return 1`;
const WITHDRAW_SCRIPT = `redis.call("zrem", KEYS[1], ARGV[1]) redis.call("hdel", KEYS[2], ARGV[1]) return 1`;
const PRESENT_SCRIPT = `${NOW_MS}
for _, gone in ipairs(redis.call("zrangebyscore", KEYS[1], "-inf", now)) do redis.call("hdel", KEYS[2], gone) end
redis.call("zremrangebyscore", KEYS[1], "-inf", now)
local out = {}
for _, member in ipairs(redis.call("zrange", KEYS[1], 0, -1)) do
  table.insert(out, member)
  table.insert(out, redis.call("hget", KEYS[2], member) or "")
end
return out`;

export class RedisLeases implements Leases, Presence {
  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly keyPrefix: string,
  ) {}

  async acquireLease(key: string, holder: string, ttlMs: number): Promise<number | null> {
    checkLease(key, holder, "acquireLease");
    requireDuration(ttlMs, "ttlMs", `acquireLease "${key}"`);
    const reply = await this.guard.run("acquire lease", `lease:${key}`, () =>
      this.client.eval(ACQUIRE_SCRIPT, { keys: [this.leaseKey(key), this.fenceKey(key)], arguments: [holder, String(ttlMs)] }),
    );
    return typeof reply === "number" ? reply : null;
  }

  async renewLease(key: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    checkLease(key, holder, "renewLease");
    requireDuration(ttlMs, "ttlMs", `renewLease "${key}"`);
    const reply = await this.guard.run("renew lease", `lease:${key}`, () =>
      this.client.eval(RENEW_SCRIPT, { keys: [this.leaseKey(key)], arguments: [`${token}|${holder}`, String(ttlMs)] }),
    );
    return reply === 1;
  }

  async releaseLease(key: string, holder: string, token: number): Promise<void> {
    checkLease(key, holder, "releaseLease");
    await this.guard.run("release lease", `lease:${key}`, () =>
      this.client.eval(RELEASE_SCRIPT, { keys: [this.leaseKey(key)], arguments: [`${token}|${holder}`] }),
    );
  }

  async leaseHolder(key: string): Promise<LeaseGrant | null> {
    requireKey(key, "leaseHolder");
    const value = await this.guard.run("read lease", `lease:${key}`, () => this.client.get(this.leaseKey(key)));
    if (value === null) return null;
    const sep = value.indexOf("|");
    return { token: Number(value.slice(0, sep)), holder: value.slice(sep + 1) };
  }

  async announce(group: string, member: string, info: string, ttlMs: number): Promise<void> {
    requireKey(group, "announce");
    requireKey(member, `announce in "${group}"`);
    requireDuration(ttlMs, "ttlMs", `announce "${member}" in "${group}"`);
    await this.guard.run("announce", `presence:${group}`, () =>
      this.client.eval(ANNOUNCE_SCRIPT, { keys: this.presenceKeys(group), arguments: [member, String(ttlMs), info] }),
    );
  }

  async withdraw(group: string, member: string): Promise<void> {
    requireKey(group, "withdraw");
    await this.guard.run("withdraw", `presence:${group}`, () =>
      this.client.eval(WITHDRAW_SCRIPT, { keys: this.presenceKeys(group), arguments: [member] }),
    );
  }

  async present(group: string): Promise<Array<{ member: string; info: string }>> {
    requireKey(group, "present");
    const reply = (await this.guard.run("list presence", `presence:${group}`, () =>
      this.client.eval(PRESENT_SCRIPT, { keys: this.presenceKeys(group), arguments: [] }),
    )) as string[];
    const members: Array<{ member: string; info: string }> = [];
    for (let i = 0; i + 1 < reply.length; i += 2) members.push({ member: reply[i]!, info: reply[i + 1]! });
    return members.sort((a, b) => a.member.localeCompare(b.member));
  }

  private leaseKey(key: string): string {
    return `${this.keyPrefix}lease:${key}`;
  }

  private fenceKey(key: string): string {
    return `${this.keyPrefix}fence:${key}`;
  }

  private presenceKeys(group: string): [string, string] {
    return [`${this.keyPrefix}presence:${group}`, `${this.keyPrefix}presence-info:${group}`];
  }
}
