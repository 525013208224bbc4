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
  const clock = new SkippingClock();
  const chain = (primaryUrl: string) =>
    createModel(
      configSchema.parse({
        llm: { baseUrl: primaryUrl, model: "fake-model", timeoutMs: TIMEOUT_MS, cooldownSeconds: COOLDOWN_MS / 1000, models: { backup: { baseUrl: backup.url, model: "fake-model" } }, fallbacks: ["backup"] },
      }).llm,
      { clock },
    );
  const model = chain(primary.url);
  const unreachable = chain("http://127.0.0.1:9/v1");
  const messages = [{ role: "user" as const, content: "hi" }];
  /** Median latency in ms of `calls` calls, one at a time, the primary answering `reply`; `fresh`: cooldown skipped first. */
  const latency = async (reply: FakeReply, calls: number, fresh: boolean, which = model): Promise<number> => {
    primary.respondWith(() => reply);
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      if (fresh) clock.skipCooldown();
      const started = performance.now();
      await generateText({ model: which, messages, maxRetries: 0 });
      times.push(performance.now() - started);
    }
    return median(times);
  };
  try {
    const ok: FakeReply = { text: "an answer from the primary" };
    const refusing: FakeReply = { status: 500, body: { error: { message: "down" } } };
    for (const reply of [ok, refusing]) await latency(reply, 50, true);
    const healthy = await latency(ok, CALLS, true);
    const rows: Array<[string, number, number]> = [
      ["the primary answers", healthy, CALLS],
      ["the primary refuses at once (500), the fallback answers", await latency(refusing, CALLS, true), CALLS],
      ["nothing listens at the primary (connection refused), the fallback answers", await latency(ok, CALLS, true, unreachable), CALLS],
      [`the primary hangs until llm.timeoutMs (${TIMEOUT_MS} ms), the fallback answers`, await latency({ hang: true }, HANGING_CALLS, true), HANGING_CALLS],
      ["later calls while the primary cools down (skipped, no request)", await latency({ hang: true }, CALLS, false), CALLS],
    ];
    return {
      name: "failover",
      workload: `generateText through a chain of two entries on two fake OpenAI-compatible servers in this process, one call at a time, maxRetries 0; median of the calls shown`,
      rows: rows.map(([scenario, ms, calls]) => ({ scenario, calls, "median latency": `${ms.toFixed(2)} ms`, "added to a healthy primary": `${(ms - healthy).toFixed(2)} ms` })),
    };
  } finally {
    await primary.close();
    await backup.close();
  }
}
