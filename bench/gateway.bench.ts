/**
 * Messages through the whole gateway: the WebChat API, the router (dedup claim, access, session queue and lock),
 * the agent turn (history load and save) and the reply, against the fake OpenAI server answering at once. The same
 * number of messages goes to one session (strictly one turn at a time) and spread over many sessions (in parallel
 * up to sessions.maxConcurrent), so the ratio shows what per-session ordering costs. The baseline row is the fake
 * LLM called directly over HTTP, without the gateway.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../src/config.js";
import { Gateway } from "../src/app.js";
import { createLogger } from "../src/infra/log.js";
import { startFakeOpenAI } from "../test/fakes/openai-server.js";
import type { BenchResult } from "./types.js";

const MESSAGES = 400;
const CLIENTS = 20;

export async function run(): Promise<BenchResult> {
  const fake = await startFakeOpenAI({ record: false });
  fake.respondWith(() => ({ text: "ok" }));
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bench-"));
  const config = configSchema.parse({
    dataDir,
    http: { port: 0 },
    llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-bench", maxRetries: 0 },
    sessions: { maxConcurrent: CLIENTS },
    log: { level: "silent" },
  });
  const gateway = await Gateway.create(config, { log: createLogger({ level: "silent", secrets: [] }) });
  const { url } = await gateway.start();
  try {
    const direct = await measure(async (i) => {
      const response = await fetch(`${fake.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: `m${i}` }] }),
      });
      await response.json();
    });
    const post = (chatId: string, i: number) => async () => {
      const response = await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ chatId, userId: "bench", text: `message ${i}`, messageId: `${chatId}-${i}` }),
      });
      const body = (await response.json()) as { outcome?: string };
      if (body.outcome !== "answered") throw new Error(`message ${i} of ${chatId}: ${JSON.stringify(body)}`);
    };
    const oneSession = await measure((i) => post("one", i)());
    const manySessions = await measure((i) => post(`chat-${i % CLIENTS}`, i)());
    return {
      name: "gateway",
      workload: `${MESSAGES} WebChat API messages from ${CLIENTS} concurrent clients, fake LLM answering at once, SQLite store`,
      rows: [
        row("fake LLM called directly (baseline)", direct, direct),
        row("gateway, 1 session (turns in order)", oneSession, direct),
        row(`gateway, ${CLIENTS} sessions in parallel`, manySessions, direct),
      ],
    };
  } finally {
    await gateway.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

interface Measured {
  perSecond: number;
  p50: number;
  p99: number;
}

/** Sends MESSAGES requests from CLIENTS concurrent callers; throughput and per-request latency. */
async function measure(send: (i: number) => Promise<void>): Promise<Measured> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < MESSAGES) {
        const i = next++;
        const t0 = performance.now();
        await send(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { perSecond: MESSAGES / seconds, p50: at(0.5), p99: at(0.99) };
}

function row(setup: string, m: Measured, baseline: Measured): Record<string, string> {
  return {
    setup,
    "messages/s": m.perSecond.toFixed(0),
    "vs baseline": `${((m.perSecond / baseline.perSecond) * 100).toFixed(1)}%`,
    "latency p50": `${m.p50.toFixed(1)} ms`,
    "latency p99": `${m.p99.toFixed(1)} ms`,
  };
}
