/**
 * Throughput with 1, 2 and 3 replicas (child processes, bench/replica-subject.ts) on one Redis: the WebChat HTTP API
 * and the Telegram webhook path, requests spread round-robin over the replicas as a load balancer would, answered by
 * an instant fake LLM (and, for Telegram, the fake Bot API), all served from this process. The load generator, the
 * fakes, Redis and every replica share the machine's cores, so the ratio to one replica shows what a second and
 * third process buy on this machine, not on one with a core per replica. Needs REDIS_URL (default
 * redis://127.0.0.1:6379). BENCH_REPLICA_MESSAGES (default 600) sets the messages per path and run.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { createClient } from "@keyv/redis";
import { startFakeOpenAI } from "../test/fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../test/fakes/telegram/server.js";
import { directChat, messageOf, text, type TgUser } from "../test/fakes/telegram/updates.js";
import type { ReplicaChildMessage, ReplicaEnv, ReplicaParentMessage } from "./replica-subject.js";
import type { BenchResult } from "./types.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MESSAGES = Number(process.env.BENCH_REPLICA_MESSAGES ?? 600);
const WARM_UP = 60;
const CONCURRENCY = 48;
/** Messages go to this many chats in turn, so some of one chat's messages meet on different replicas. */
const CHATS = 200;
const REPLICA_COUNTS = [1, 2, 3];
const REPLY_DEADLINE_MS = 30_000;
const WEBHOOK_SECRET = "bench-webhook-secret";
const WEBHOOK_PATH = "/telegram/webhook";
const subjectFile = fileURLToPath(new URL("./replica-subject.ts", import.meta.url));

interface RunResult {
  replicas: number;
  webPerSecond: number;
  telegramPerSecond: number;
  /** CPU time of all replicas together per message: what scaling out costs beside what it buys. */
  webCpuMs: number;
  telegramCpuMs: number;
}

export async function run(): Promise<BenchResult> {
  const llm = await startFakeOpenAI({ record: false });
  llm.respondWith(() => ({ text: "ok" }));
  const tg = await startFakeTelegram();
  const results: RunResult[] = [];
  try {
    for (const count of REPLICA_COUNTS) results.push(await measure(count, { apiRoot: tg.url, token: tg.token, llmUrl: llm.url }, tg));
  } finally {
    await tg.close();
    await llm.close();
  }
  const [one] = results;
  return {
    name: "replicas",
    workload:
      `${MESSAGES} msgs per path and replica count, ${CONCURRENCY} in flight, ${CHATS} chats, round-robin over the replicas; ` +
      `WebChat POST /api/v1/messages (waits for the reply) and Telegram webhook POSTs (reply = the fake Bot API's sendMessage); ` +
      `instant fake LLM; one Redis; ${cpus().length} cores shared by everything`,
    rows: results.map((r) => ({
      replicas: r.replicas,
      "WebChat msg/s": r.webPerSecond.toFixed(1),
      "WebChat vs 1": `${(r.webPerSecond / one!.webPerSecond).toFixed(2)}x`,
      "Telegram webhook msg/s": r.telegramPerSecond.toFixed(1),
      "Telegram vs 1": `${(r.telegramPerSecond / one!.telegramPerSecond).toFixed(2)}x`,
      "WebChat CPU/msg (all replicas)": `${r.webCpuMs.toFixed(1)} ms`,
      "Telegram CPU/msg (all replicas)": `${r.telegramCpuMs.toFixed(1)} ms`,
    })),
  };
}

async function measure(count: number, fakes: Pick<ReplicaEnv, "apiRoot" | "token" | "llmUrl">, tg: FakeTelegram): Promise<RunResult> {
  const keyPrefix = `switchboard-bench:${randomUUID()}:`;
  const replicas = await Promise.all(
    Array.from({ length: count }, () => Replica.start({ ...fakes, redisUrl: REDIS_URL, keyPrefix, webhookSecret: WEBHOOK_SECRET, webhookPath: WEBHOOK_PATH })),
  );
  const replies = new TelegramReplies(tg);
  try {
    const web = (i: number) => postWeb(replicas[i % count]!.url, `chat-${i % CHATS}`, `web ${i}`);
    const telegram = (i: number) => replies.post(replicas[i % count]!.url, userOf(i % CHATS), `tg ${i}`);
    await inFlight(WARM_UP, web);
    await inFlight(WARM_UP, telegram);
    const cpuMs = async () => (await Promise.all(replicas.map((r) => r.cpuMicros()))).reduce((a, b) => a + b, 0) / 1000;
    const cpu0 = await cpuMs();
    const webPerSecond = MESSAGES / (await timed(() => inFlight(MESSAGES, web)));
    const cpu1 = await cpuMs();
    const telegramPerSecond = MESSAGES / (await timed(() => inFlight(MESSAGES, telegram)));
    const cpu2 = await cpuMs();
    process.stderr.write(`replicas bench: ${count} replica(s): WebChat ${webPerSecond.toFixed(1)} msg/s, Telegram ${telegramPerSecond.toFixed(1)} msg/s, lost ${replies.lost}\n`);
    return { replicas: count, webPerSecond, telegramPerSecond, webCpuMs: (cpu1 - cpu0) / MESSAGES, telegramCpuMs: (cpu2 - cpu1) / MESSAGES };
  } finally {
    replies.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    await deleteKeys(keyPrefix);
  }
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** Runs `send(0..total-1)` with at most CONCURRENCY at once. */
async function inFlight(total: number, send: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await send(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function postWeb(baseUrl: string, chatId: string, body: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chatId, userId: chatId, text: body }),
  });
  const answer = (await response.json()) as { outcome?: string };
  if (answer.outcome !== "answered") throw new Error(`WebChat answered ${response.status} ${JSON.stringify(answer)}`);
}

const userOf = (i: number): TgUser => ({ id: 5_000_000 + i, is_bot: false, first_name: `User${i}` });

/** Posts updates to a replica's webhook and resolves when the fake Bot API saw the reply to them. */
class TelegramReplies {
  lost = 0;
  readonly #waiting = new Map<number, () => void>();
  #seen = 0;
  #nextUpdateId = 1;
  #stopped = false;

  constructor(private readonly tg: FakeTelegram) {
    void tg.waitFor(() => this.#scan(), 24 * 3600_000).catch(() => undefined);
  }

  async post(baseUrl: string, user: TgUser, body: string): Promise<void> {
    const update = { update_id: this.#nextUpdateId++, ...text(directChat(user), body, { from: user }) };
    const messageId = messageOf(update).message_id;
    const replied = new Promise<void>((resolve) => {
      this.#waiting.set(messageId, resolve);
      setTimeout(() => {
        if (!this.#waiting.delete(messageId)) return;
        this.lost += 1;
        resolve();
      }, REPLY_DEADLINE_MS).unref();
    });
    const response = await fetch(`${baseUrl}${WEBHOOK_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET },
      body: JSON.stringify(update),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`the webhook answered ${response.status}`);
    await replied;
  }

  stop(): void {
    this.#stopped = true;
  }

  #scan(): boolean {
    const { sent } = this.tg;
    for (; this.#seen < sent.length; this.#seen++) {
      const target = sent[this.#seen]!.replyTo;
      if (target === undefined) continue;
      this.#waiting.get(target)?.();
      this.#waiting.delete(target);
    }
    return this.#stopped;
  }
}

async function deleteKeys(keyPrefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}*` })) {
    if (keys.length > 0) await client.del(keys);
  }
  await client.close();
}

/** A replica's child process. */
class Replica {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(env: ReplicaEnv): Promise<Replica> {
    const child = fork(subjectFile, [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, SWITCHBOARD_BENCH_REPLICA: JSON.stringify(env) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const ready = (await next(child, "ready")) as Extract<ReplicaChildMessage, { type: "ready" }>;
    return new Replica(child, ready.url);
  }

  async cpuMicros(): Promise<number> {
    const answer = next(this.child, "stats");
    this.child.send({ type: "stats" } satisfies ReplicaParentMessage);
    return ((await answer) as Extract<ReplicaChildMessage, { type: "stats" }>).cpuMicros;
  }

  async stop(): Promise<void> {
    const stopped = next(this.child, "stopped");
    this.child.send({ type: "stop" } satisfies ReplicaParentMessage);
    await stopped;
    const exited = once(this.child, "exit");
    this.child.disconnect();
    await exited;
  }
}

function next(child: ChildProcess, type: ReplicaChildMessage["type"]): Promise<ReplicaChildMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ReplicaChildMessage) => {
      if (message.type !== type) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`a replica exited (code ${code}) while waiting for "${type}"`));
    };
    const cleanup = () => {
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.on("exit", onExit);
  });
}
