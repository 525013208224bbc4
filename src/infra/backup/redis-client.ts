/** A plain Redis connection for the backup commands, failing fast and without the URL's password in its errors. */
import { createClient, type RedisClientType } from "@keyv/redis";
import { redactText } from "../config/secrets.js";
import type { StoreTarget } from "../store/store-url.js";

type RedisTarget = Extract<StoreTarget, { kind: "redis" }>;

export async function withRedis<T>(target: RedisTarget, use: (client: RedisClientType) => Promise<T>): Promise<T> {
  const client: RedisClientType = createClient({ url: target.url, socket: { connectTimeout: 5_000, reconnectStrategy: false } });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    const secrets = target.password === null ? [] : [target.password];
    throw new Error(`cannot connect to Redis at ${target.safeUrl}: ${redactText((err as Error).message, secrets)}`, { cause: err });
  }
  try {
    return await use(client);
  } finally {
    await client.close().catch(() => client.destroy());
  }
}
