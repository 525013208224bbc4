/**
 * Ticket lines on Redis: a ticket is a number from the line's counter (HINCRBY), queued in a sorted set by number,
 * with a lease deadline (Redis server time) in the line's hash that its holder renews while it waits and runs. A
 * ticket runs when it is the lowest in the set; lower tickets whose lease ran out (their holder died) are purged on
 * the way. The number is the fencing token: a holder that lost its ticket has a lower one than whoever ran next.
 * The scripts touch only the keys they are given, except that a line is one hash and one sorted set.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { RedisClientType } from "@keyv/redis";
import type { Logger } from "../log.js";
import type { Ticket } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { LockTimeoutError } from "./errors.js";
import { keepLeaseAlive, type LeaseKeeper } from "./lease-keeper.js";
import { DEFAULT_LEASE_MS, DEFAULT_WAIT_MS, requireDuration, requireKey } from "./checks.js";

const NOW_MS = `local t = redis.call("time") local now = t[1] * 1000 + math.floor(t[2] / 1000)`;
const TAKE_SCRIPT = `${NOW_MS}
local n = redis.call("hincrby", KEYS[1], "next", 1)
redis.call("hset", KEYS[1], "t" .. n, now + tonumber(ARGV[1]))
redis.call("zadd", KEYS[2], n, n)
return n`;
const RENEW_SCRIPT = `${NOW_MS}
if redis.call("hexists", KEYS[1], "t" .. ARGV[1]) == 0 then return 0 end
redis.call("hset", KEYS[1], "t" .. ARGV[1], now + tonumber(ARGV[2]))
return 1`;
/** 1: the ticket may run; 0: an earlier live ticket is ahead; -1: the ticket itself was purged (its lease ran out). */
const ACQUIRE_SCRIPT = `${NOW_MS}
if redis.call("hexists", KEYS[1], "t" .. ARGV[1]) == 0 then return -1 end
while true do
  local head = redis.call("zrange", KEYS[2], 0, 0)[1]
  if head == nil or head == false then return -1 end
  if head == ARGV[1] then return 1 end
  local deadline = tonumber(redis.call("hget", KEYS[1], "t" .. head))
  if deadline ~= nil and deadline > now then return 0 end
  redis.call("zrem", KEYS[2], head)
  redis.call("hdel", KEYS[1], "t" .. head)
end`;
const RELEASE_SCRIPT = `redis.call("zrem", KEYS[2], ARGV[1]) redis.call("hdel", KEYS[1], "t" .. ARGV[1]) return 1`;
const FENCE_SCRIPT = `local current = tonumber(redis.call("get", KEYS[1]) or "0")
if current > tonumber(ARGV[1]) then return 0 end
redis.call("set", KEYS[1], ARGV[1])
return 1`;

const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 50;

export class RedisTickets {
  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly keyPrefix: string,
    private readonly log: Logger,
  ) {}

  async take(line: string, opts?: { leaseMs?: number }): Promise<Ticket> {
    requireKey(line, "takeTicket");
    const leaseMs = opts?.leaseMs ?? DEFAULT_LEASE_MS;
    requireDuration(leaseMs, "leaseMs", `takeTicket "${line}"`);
    return new RedisTicket(this, line, leaseMs, await this.takeToken(line, leaseMs));
  }

  async fence(resource: string, token: number): Promise<boolean> {
    requireKey(resource, "fence");
    const reply = await this.guard.run("fence", `fence:${resource}`, () =>
      this.client.eval(FENCE_SCRIPT, { keys: [`${this.keyPrefix}fence:${resource}`], arguments: [String(token)] }),
    );
    return reply === 1;
  }

  /** @internal the ticket's round trips */
  async takeToken(line: string, leaseMs: number): Promise<number> {
    return Number(await this.script("take ticket", TAKE_SCRIPT, line, [String(leaseMs)]));
  }

  /** @internal */
  async acquire(line: string, token: number): Promise<number> {
    return Number(await this.script("wait for ticket", ACQUIRE_SCRIPT, line, [String(token)]));
  }

  /** @internal */
  async renew(line: string, token: number, leaseMs: number): Promise<boolean> {
    return (await this.script("renew ticket", RENEW_SCRIPT, line, [String(token), String(leaseMs)])) === 1;
  }

  /** @internal failures are logged: the ticket then leaves the line when its lease runs out. */
  async drop(line: string, token: number): Promise<void> {
    await this.script("release ticket", RELEASE_SCRIPT, line, [String(token)]).catch((err: unknown) =>
      this.log.warn({ err, line, token }, "ticket release failed; it leaves the line with its lease"),
    );
  }

  /** @internal */
  warn(fields: Record<string, unknown>, message: string): void {
    this.log.warn(fields, message);
  }

  /** @internal */
  keepAlive(line: string, token: number, leaseMs: number): LeaseKeeper {
    return keepLeaseAlive({ line, token }, leaseMs, () => this.renew(line, token, leaseMs), this.log);
  }

  private script(operation: string, script: string, line: string, args: string[]): Promise<unknown> {
    const base = `${this.keyPrefix}line:${line}`;
    return this.guard.run(operation, `line:${line}`, () => this.client.eval(script, { keys: [base, `${base}:queue`], arguments: args }));
  }
}

class RedisTicket implements Ticket {
  #token: number;
  #keeper: LeaseKeeper;
  #released: Promise<void> | undefined;

  constructor(
    private readonly tickets: RedisTickets,
    private readonly line: string,
    private readonly leaseMs: number,
    token: number,
  ) {
    this.#token = token;
    this.#keeper = tickets.keepAlive(line, token, leaseMs);
  }

  get token(): number {
    return this.#token;
  }

  async run<T>(fn: (token: number) => Promise<T>, opts?: { waitMs?: number }): Promise<T> {
    const waitMs = opts?.waitMs ?? DEFAULT_WAIT_MS;
    try {
      await this.waitForTurn(waitMs);
      return await fn(this.#token);
    } finally {
      await this.release();
    }
  }

  release(): Promise<void> {
    this.#released ??= this.#keeper.stop().then(() => this.tickets.drop(this.line, this.#token));
    return this.#released;
  }

  private async waitForTurn(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, MAX_POLL_MS)) {
      const verdict = await this.tickets.acquire(this.line, this.#token);
      if (verdict === 1) return;
      if (verdict === -1) {
        // The lease ran out while waiting (renewals failed): the place is lost, so this turn queues again at the end.
        this.tickets.warn({ line: this.line, token: this.#token }, "ticket lost its place in line; taking a new one");
        await this.#keeper.stop();
        this.#token = await this.tickets.takeToken(this.line, this.leaseMs);
        this.#keeper = this.tickets.keepAlive(this.line, this.#token, this.leaseMs);
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new LockTimeoutError(`line:${this.line}`, waitMs);
      await delay(Math.min(pollMs * (0.5 + Math.random()), remaining));
    }
  }
}
