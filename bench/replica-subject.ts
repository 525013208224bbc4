/**
 * One replica for bench/replicas.bench.ts, in its own process: the whole gateway on Redis (the parent's key prefix),
 * WebChat on and Telegram in webhook mode, answering through the parent's fake Bot API and instant fake LLM. It
 * tells the parent its URL once started, its CPU time when asked, and stops when told (or when the parent goes away).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ReplicaEnv {
  redisUrl: string;
  keyPrefix: string;
  apiRoot: string;
  token: string;
  llmUrl: string;
  webhookSecret: string;
  webhookPath: string;
}

export type ReplicaParentMessage = { type: "stats" } | { type: "stop" };
export type ReplicaChildMessage = { type: "ready"; url: string } | { type: "stats"; cpuMicros: number } | { type: "stopped" };

const env = JSON.parse(process.env.SWITCHBOARD_BENCH_REPLICA ?? "null") as ReplicaEnv | null;
if (!env) throw new Error("bench/replica-subject.ts runs as a child of bench/replicas.bench.ts");

const send = (message: ReplicaChildMessage) => process.send?.(message);

const { configSchema } = await import("../src/config.js");
const { Gateway } = await import("../src/app.js");
const { createLogger } = await import("../src/infra/log.js");
const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bench-replica-"));
const unlimited = { messages: 1_000_000, windowSeconds: 60 };
const config = configSchema.parse({
  dataDir,
  http: { port: 0 },
  store: { url: env.redisUrl, keyPrefix: env.keyPrefix },
  llm: { baseUrl: env.llmUrl, model: "fake-model", apiKey: "sk-bench", maxRetries: 0 },
  channels: {
    telegram: { token: env.token, apiRoot: env.apiRoot, mode: "webhook", webhook: { url: `https://bench.invalid${env.webhookPath}`, secretToken: env.webhookSecret } },
  },
  access: { dmPolicy: "open", limits: { perUser: unlimited, perChat: unlimited, maxConcurrentTurnsPerUser: 1_000 } },
  sessions: { maxConcurrent: 64 },
  skills: { watch: false },
  log: { level: "silent" },
});
const gateway = await Gateway.create(config, { log: createLogger({ level: "silent", secrets: [] }) });
const { url } = await gateway.start();

process.on("message", (message: ReplicaParentMessage) => {
  if (message.type === "stats") {
    const cpu = process.cpuUsage();
    send({ type: "stats", cpuMicros: cpu.user + cpu.system });
    return;
  }
  void gateway
    .stop()
    .then(() => rm(dataDir, { recursive: true, force: true }))
    .finally(() => send({ type: "stopped" }));
});
// The parent went away (killed or crashed): do not linger.
process.on("disconnect", () => process.exit(0));
send({ type: "ready", url });
