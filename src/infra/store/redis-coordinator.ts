/**
 * The coordinator across replicas: once-only markers and locks are Redis keys set with NX and a TTL.
 * A lock holds a random token; only the holder's token renews or releases it (compare-and-act Lua scripts),
 * so a holder whose lease ran out cannot release the next holder's lock.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { RedisClientType } from "@keyv/redis";
import type { Logger } from "../log.js";
import type { Coordinator, SharedCounters, Ticket } from "./types.js";
import { ForwardingLeases } from "./forwarding-leases.js";
import { RedisLeases } from "./redis-leases.js";
import type { BackendGuard } from "./backend-guard.js";
import { LockTimeoutError } from "./errors.js";
import { KeyedMutex } from "./keyed-mutex.js";
import { keepLeaseAlive } from "./lease-keeper.js";
import { RedisCounters } from "./redis-counters.js";
import { RedisTickets } from "./redis-tickets.js";
import { requireDuration, requireKey, resolveLockOptions, type LockOptions } from "./checks.js";

const RELEASE_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const RENEW_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

/** Retry delays while another replica holds the lock: short at first, capped, with jitter against lockstep. */
const FIRST_RETRY_MS = 5;
const MAX_RETRY_MS = 100;

interface HeldLock {
  key: string;
  redisKey: string;
  token: string;
  leaseMs: number;
}

export class RedisCoordinator extends ForwardingLeases implements Coordinator {
  readonly shared: SharedCounters;
  readonly #tickets: RedisTickets;
  readonly #local = new KeyedMutex();

  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly keyPrefix: string,
    private readonly log: Logger,
  ) {
    super(new RedisLeases(client, guard, keyPrefix));
    this.shared = new RedisCounters(client, guard, keyPrefix, log);
    this.#tickets = new RedisTickets(client, guard, keyPrefix, log);
  }

  takeTicket(line: string, opts?: { leaseMs?: number }): Promise<Ticket> {
    return this.#tickets.take(line, opts);
  }

  fence(resource: string, token: number): Promise<boolean> {
    return this.#tickets.fence(resource, token);
  }

  async setIfAbsent(key: string, ttlMs: number): Promise<boolean> {
    requireKey(key, "setIfAbsent");
    requireDuration(ttlMs, "ttlMs", `setIfAbsent "${key}"`);
    const reply = await this.guard.run("setIfAbsent", `once:${key}`, () =>
      this.client.set(`${this.keyPrefix}once:${key}`, "1", { condition: "NX", expiration: { type: "PX", value: ttlMs } }),
    );
    return reply !== null;
  }

  /**
   * Callers in this process queue here first, so only one of them at a time polls Redis for a key: without it, many
   * local waiters of one hot key (an inbox, the session directory) poll with growing backoff and the lock sits free
   * between their polls.
   */
  async withLock<T>(key: string, fn: () => Promise<T>, opts?: Partial<LockOptions>): Promise<T> {
    const { leaseMs, waitMs } = resolveLockOptions(key, opts);
    const deadline = Date.now() + waitMs;
    return this.#local.run(key, () => this.withRedisLock(key, fn, leaseMs, Math.max(0, deadline - Date.now())), waitMs);
  }

  private async withRedisLock<T>(key: string, fn: () => Promise<T>, leaseMs: number, waitMs: number): Promise<T> {
    const lock: HeldLock = { key, redisKey: `${this.keyPrefix}lock:${key}`, token: randomUUID(), leaseMs };
    await this.acquire(lock, waitMs);
    const renewal = keepLeaseAlive({ lock: key }, leaseMs, () => this.renew(lock), this.log);
    try {
      return await fn();
    } finally {
      await renewal.stop();
      await this.release(lock);
    }
  }

  private async acquire(lock: HeldLock, waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (let retryMs = FIRST_RETRY_MS; ; retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)) {
      const reply = await this.guard.run("lock", `lock:${lock.key}`, () =>
        this.client.set(lock.redisKey, lock.token, { condition: "NX", expiration: { type: "PX", value: lock.leaseMs } }),
      );
      if (reply !== null) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new LockTimeoutError(lock.key, waitMs);
      await delay(Math.min(retryMs * (0.5 + Math.random()), remaining));
    }
  }

  /** True while the lock is still ours. */
  private async renew(lock: HeldLock): Promise<boolean> {
    const reply = await this.guard.run("renew lock", `lock:${lock.key}`, () =>
      this.client.eval(RENEW_SCRIPT, { keys: [lock.redisKey], arguments: [lock.token, String(lock.leaseMs)] }),
    );
    return reply === 1;
  }

  /** A failed release is logged, not thrown: the lease expires on its own and `fn`'s outcome stands. */
  private async release(lock: HeldLock): Promise<void> {
    try {
      await this.guard.run("unlock", `lock:${lock.key}`, () =>
        this.client.eval(RELEASE_SCRIPT, { keys: [lock.redisKey], arguments: [lock.token] }),
      );
    } catch (err) {
      this.log.warn({ err, lock: lock.key, leaseMs: lock.leaseMs }, "lock release failed; it expires with its lease");
    }
  }
}
