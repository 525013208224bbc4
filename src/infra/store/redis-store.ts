/**
 * The shared backend for several replicas: one redis client serves keyv (namespaces) and the coordinator.
 * Every wait is bounded: the first connection (a wrong host fails createStore within seconds instead of
 * retrying forever), and each command (a command issued during an outage fails after a few seconds instead
 * of waiting in the offline queue). Once connected, the client reconnects on its own, with capped backoff.
 */
import KeyvRedis, { createClient, type RedisClientType } from "@keyv/redis";
import type { Logger } from "../log.js";
import type { Store } from "./types.js";
import { BackendGuard } from "./backend-guard.js";
import { raceDeadline } from "./deadline.js";
import { jsonKeyv, KeyvNamespace } from "./keyv-namespace.js";
import { KeyvStore } from "./keyv-store.js";
import { RedisBus } from "./redis-bus.js";
import { RedisCoordinator } from "./redis-coordinator.js";
import { RedisLists } from "./redis-lists.js";
import { RedisSets } from "./redis-sets.js";
import { RedisTallies } from "./redis-tallies.js";

const CONNECT_TIMEOUT_MS = 3_000;
const CONNECT_DEADLINE_MS = 5_000;
const FIRST_CONNECT_RETRIES = 2;
const COMMAND_TIMEOUT_MS = 5_000;
const CLOSE_DEADLINE_MS = 2_000;

export interface RedisTarget {
  url: string;
  /** The URL with its password masked, for messages. */
  safeUrl: string;
  password: string | null;
}

export async function connectRedisStore(target: RedisTarget, keyPrefix: string, log: Logger): Promise<Store> {
  const guard = new BackendGuard(target.password === null ? [] : [target.password]);
  const client = await connect(target, guard, log);
  const keyv = jsonKeyv(new KeyvRedis(client, { throwOnErrors: true, throwOnConnectError: true }));
  const bus = new RedisBus(client, guard, keyPrefix, log);
  log.info({ backend: "redis", url: target.safeUrl }, "store opened");
  return new KeyvStore({
    backend: "redis",
    guard,
    namespace: (name) => new KeyvNamespace(keyv, guard, name, keyPrefix),
    coordinator: new RedisCoordinator(client, guard, keyPrefix, log),
    bus,
    lists: (name) => new RedisLists(client, guard, name, keyPrefix),
    sets: (name) => new RedisSets(client, guard, name, `${keyPrefix}sets:${name}:`),
    tallies: (name) => new RedisTallies(client, guard, name, `${keyPrefix}tallies:${name}:`),
    write: async ({ sets, removals }) => {
      const transaction = client.multi();
      // The keys and rows KeyvNamespace and RedisSets use.
      for (const { namespace, key, text, ttlMs } of sets) {
        transaction.set(`${keyPrefix}${namespace}:${key}`, text, ttlMs === undefined ? {} : { expiration: { type: "PX", value: ttlMs } });
      }
      for (const { namespace, key, id } of removals) transaction.hDel(`${keyPrefix}sets:${namespace}:${key}`, id);
      await transaction.exec();
    },
    roundTrip: () => client.ping(),
    shutdown: async () => {
      await bus.close();
      await disconnect(client);
    },
  });
}

async function connect(target: RedisTarget, guard: BackendGuard, log: Logger): Promise<RedisClientType> {
  let connected = false;
  let healthy = true;
  const client: RedisClientType = createClient({
    url: target.url,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries, cause) => {
        if (connected) return Math.min(100 * 2 ** retries, 2_000);
        return retries < FIRST_CONNECT_RETRIES ? 200 : cause;
      },
    },
  });
  // Logs an outage once, not at every reconnection attempt. Without an error listener node-redis would crash.
  client.on("error", (err: unknown) => {
    if (!connected || !healthy) return;
    healthy = false;
    log.warn({ err: guard.wrap("connection", target.safeUrl, err) }, "redis connection lost; reconnecting");
  });
  client.on("ready", () => {
    if (healthy) return;
    healthy = true;
    log.info({ url: target.safeUrl }, "redis connection restored");
  });
  try {
    await raceDeadline(client.connect(), CONNECT_DEADLINE_MS, () => new Error(`no answer within ${CONNECT_DEADLINE_MS} ms`));
  } catch (err) {
    if (client.isOpen) client.destroy();
    throw guard.wrap("connect", target.safeUrl, err);
  }
  connected = true;
  return client;
}

/** Waits for pending commands, but not forever: a dead connection would never answer them. */
async function disconnect(client: RedisClientType): Promise<void> {
  if (!client.isOpen) return;
  try {
    await raceDeadline(client.close(), CLOSE_DEADLINE_MS, () => new Error("close timed out"));
  } catch {
    if (client.isOpen) client.destroy();
  }
}
