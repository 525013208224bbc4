/**
 * What a failover adds to a model call's latency: a chain of two entries (two fake OpenAI-compatible servers) with
 * the primary answering, refusing at once (500), refused at the connection, hanging until llm.timeoutMs, and
 * cooling down after such a failure (skipped without a request). Each call is generateText as a turn makes it.
 */
import { generateText } from "ai";
import { createModel } from "../src/agent/llm.js";
import { configSchema } from "../src/config.js";
import type { Clock } from "../src/core/clock.js";
import { startFakeOpenAI, type FakeReply } from "../test/fakes/openai-server.js";
import { median } from "./stats.js";
import type { BenchResult } from "./types.js";

const CALLS = 200;
const HANGING_CALLS = 5;
const TIMEOUT_MS = 1_000;
const COOLDOWN_MS = 60_000;
const WARM_UP = 50;
/** Nothing listens at port 9 (discard) on loopback: the connection is refused at once. */
const DEAD_URL = "http://127.0.0.1:9/v1";

/** Real time, moved past the cooldown at will: each measured call meets the primary ready again. */
class SkippingClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  setTimer(delayMs: number, fn: () => void): () => void {
    const timer = setTimeout(fn, delayMs).unref();
    return () => clearTimeout(timer);
  }
  skipCooldown(): void {
    this.offset += COOLDOWN_MS + 1;
  }
}

export async function run(): Promise<BenchResult> {
  const primary = await startFakeOpenAI({ record: false });
  const backup = await startFakeOpenAI({ record: false });
  backup.respondWith(() => ({ text: "an answer from the fallback" }));
  const chain = (primaryUrl: string, clock: Clock) =>
    createModel(
      configSchema.parse({
        llm: { baseUrl: primaryUrl, model: "fake-model", timeoutMs: TIMEOUT_MS, cooldownSeconds: COOLDOWN_MS / 1000, models: { backup: { baseUrl: backup.url, model: "fake-model" } }, fallbacks: ["backup"] },
      }).llm,
      { clock },
    );
  const fresh = new SkippingClock();
  const [answering, unreachable, cooling] = [chain(primary.url, fresh), chain(DEAD_URL, fresh), chain(DEAD_URL, new SkippingClock())];
  const messages = [{ role: "user" as const, content: "hi" }];
  const ok: FakeReply = { text: "an answer from the primary" };
  // The fast ways one call each in turn, so that the machine's load falls on all of them alike.
  const ways: Array<{ scenario: string; model: typeof answering; reply: FakeReply; times: number[] }> = [
    { scenario: "the primary answers", model: answering, reply: ok, times: [] },
    { scenario: "the primary refuses at once (500), the fallback answers", model: answering, reply: { status: 500, body: { error: { message: "down" } } }, times: [] },
    { scenario: "nothing listens at the primary (connection refused), the fallback answers", model: unreachable, reply: ok, times: [] },
    { scenario: "later calls while the primary cools down (skipped, no request)", model: cooling, reply: ok, times: [] },
  ];
  const call = async (way: (typeof ways)[number], into: number[]): Promise<void> => {
    primary.respondWith(() => way.reply);
    fresh.skipCooldown();
    const started = performance.now();
    await generateText({ model: way.model, messages, maxRetries: 0 });
    into.push(performance.now() - started);
  };
  try {
    for (let i = 0; i < WARM_UP; i++) for (const way of ways) await call(way, []);
    for (let i = 0; i < CALLS; i++) for (const way of ways) await call(way, way.times);
    const hanging = { scenario: `the primary hangs until llm.timeoutMs (${TIMEOUT_MS} ms), the fallback answers`, model: answering, reply: { hang: true } as FakeReply, times: [] as number[] };
    for (let i = 0; i < HANGING_CALLS; i++) await call(hanging, hanging.times);
    const healthy = median(ways[0]!.times);
    return {
      name: "failover",
      workload: `generateText through a chain of two entries on two fake OpenAI-compatible servers in this process, one call at a time, the ways in turn, maxRetries 0; median of the calls`,
      rows: [...ways, hanging].map(({ scenario, times }) => ({
        scenario,
        calls: times.length,
        "median latency": `${median(times).toFixed(2)} ms`,
        "added to a healthy primary": `${(median(times) - healthy).toFixed(2)} ms`,
      })),
    };
  } finally {
    await primary.close();
    await backup.close();
  }
}
