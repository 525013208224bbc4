/**
 * Several gateways in this process on one Redis (CI's, at REDIS_URL) under a key prefix of their own, each with
 * its own data dir and port, all answered by one fake model, as replicas of one deployment would be.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import { Gateway } from "../../src/app.js";
import { configSchema, collectSecrets, type ConfigInput } from "../../src/config.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";
import type { ApiReply } from "../e2e/harness.js";

export const REDIS_URL = process.env.REDIS_URL;

export interface Replica {
  gateway: Gateway;
  url: string;
  /** Its log lines at warn and above. */
  logs: LogRecord[];
  post(body: unknown): Promise<ApiReply>;
}

export interface Replicas {
  replicas: Replica[];
  fake: FakeOpenAI;
  keyPrefix: string;
  close(): Promise<void>;
}

export async function startReplicas(count: number, overrides: ConfigInput = {}): Promise<Replicas> {
  const fake = await startFakeOpenAI();
  const keyPrefix = `switchboard-test:${randomUUID()}:`;
  const replicas: Replica[] = [];
  for (let i = 0; i < count; i++) {
    const config = configSchema.parse({
      ...overrides,
      dataDir: await mkdtemp(join(tmpdir(), `switchboard-replica-${i}-`)),
      store: { url: REDIS_URL, keyPrefix },
      http: { port: 0 },
      llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-replica-secret", maxRetries: 0, timeoutMs: 10_000 },
      log: { level: "warn" },
    });
    const { log, logs } = captureLog(collectSecrets(config), "warn");
    const gateway = await Gateway.create(config, { log });
    const url = (await gateway.start()).url;
    replicas.push({
      gateway,
      url,
      logs,
      async post(body) {
        const response = await fetch(`${url}/api/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as ApiReply["body"] };
      },
    });
  }
  return {
    replicas,
    fake,
    keyPrefix,
    async close() {
      await Promise.all(replicas.map((r) => r.gateway.stop()));
      await fake.close();
      await deleteKeys(keyPrefix);
    },
  };
}

export async function deleteKeys(keyPrefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL! });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}*` })) {
    if (keys.length > 0) await client.del(keys);
  }
  await client.close();
}
