/**
 * One bot under test for bench/telegram.bench.ts, in its own process so its CPU time and RSS are its own:
 * `grammy` is a bare grammY bot that answers each text with one LLM call (AI SDK, the same provider Switchboard
 * uses); `switchboard` is the whole gateway with the Telegram channel in polling mode on SQLite. Both talk to the
 * fake Bot API and the fake LLM the parent runs. The parent asks for `stats` (CPU and RSS) over IPC.
 */
import { Session } from "node:inspector/promises";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import type * as AppModule from "../src/app.js";
import type * as ConfigModule from "../src/config.js";
import type * as LogModule from "../src/infra/log.js";

export interface SubjectEnv {
  subject: "grammy" | "switchboard";
  apiRoot: string;
  token: string;
  llmUrl: string;
  /** Switchboard from dist/ (the compiled build) instead of src/ through tsx. */
  dist: boolean;
  /** Switchboard from this build folder instead (absolute; BENCH_TG_VERSUS). */
  build?: string;
}

export type ParentMessage =
  | { type: "stats" }
  | { type: "retained" }
  | { type: "stop" }
  | { type: "allocations"; action: "start" | "stop"; file: string };
export type ChildMessage =
  | { type: "ready" }
  | { type: "stats"; cpuMicros: number; rss: number; storeQueries: number; gcMillis: number }
  | { type: "retained"; rss: number; heap: number }
  | { type: "stopped" };

const env = JSON.parse(process.env.SWITCHBOARD_BENCH_SUBJECT ?? "null") as SubjectEnv | null;
if (!env) throw new Error("bench/telegram-subject.ts runs as a child of bench/telegram.bench.ts");

const send = (message: ChildMessage) => process.send?.(message);

/**
 * Up to three tries, as Switchboard's outbound service retries a failed connection or a 5xx: without them a reset
 * connection under a 200 msg/s burst lost the baseline's reply while Switchboard's went out.
 */
async function attempts<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 3) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

async function startGrammy(e: SubjectEnv): Promise<() => Promise<void>> {
  // Imported here, not at the top: Switchboard's subject loads only what Switchboard itself loads.
  const [{ createOpenAICompatible }, { generateText }, { Bot }] = await Promise.all([import("@ai-sdk/openai-compatible"), import("ai"), import("grammy")]);
  const provider = createOpenAICompatible({ name: "bench", baseURL: e.llmUrl, apiKey: "sk-bench" });
  const model = provider.chatModel("fake-model");
  const bot = new Bot(e.token, { client: { apiRoot: e.apiRoot } });
  const answer = async (chatId: number, messageId: number, text: string) => {
    const result = await attempts(() => generateText({ model, messages: [{ role: "user", content: text }], maxRetries: 0 }));
    await attempts(() => bot.api.sendMessage(chatId, result.text, { reply_parameters: { message_id: messageId } }));
  };
  // Not awaited: messages are answered concurrently, as the gateway answers different chats concurrently. A reply
  // that still fails is reported, not swallowed: the parent counts it as lost.
  bot.on("message:text", (ctx) =>
    void answer(ctx.chat.id, ctx.message.message_id, ctx.message.text).catch((err: unknown) => {
      process.stderr.write(`grammY baseline: no reply to message ${ctx.message.message_id}: ${String(err)}\n`);
    }),
  );
  // bot.start stops for good on an error (a 409 when a late poll overlaps the next one on a loaded machine);
  // polling again keeps the baseline alive, as Switchboard's poller does.
  let stopping = false;
  const poll = (): void => {
    bot.start({ timeout: 1 }).catch(() => {
      if (!stopping) setTimeout(poll, 20);
    });
  };
  poll();
  return () => {
    stopping = true;
    return bot.stop();
  };
}

/** Time spent in garbage collection so far: what the heap's settings (semi-space, limit) cost in CPU. */
let gcMillis = 0;
/** GC pauses since the last reading by kind (scavenge, mark-compact, ...): count, total and longest, on stderr. */
const gcPauses = new Map<string, { count: number; ms: number; max: number }>();
const GC_KINDS: Record<number, string> = { 1: "scavenge", 2: "minor mark-sweep", 4: "mark-compact", 8: "incremental marking", 16: "weak callbacks" };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMillis += entry.duration;
    const kind = GC_KINDS[(entry.toJSON() as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? "other";
    const seen = gcPauses.get(kind) ?? { count: 0, ms: 0, max: 0 };
    gcPauses.set(kind, { count: seen.count + 1, ms: seen.ms + entry.duration, max: Math.max(seen.max, entry.duration) });
  }
}).observe({ entryTypes: ["gc"] });

/** SQL statements run so far: every store round trip on SQLite is one (a prepared statement's all or run). */
let storeQueries = 0;
/** BENCH_TG_SQL=1: count and time (ms) by statement, printed at the end, to see which part makes the round trips. */
const queryShapes = process.env.BENCH_TG_SQL ? new Map<string, { count: number; ms: number }>() : undefined;

async function countStoreQueries(): Promise<void> {
  const { default: Database } = await import("better-sqlite3");
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<"all" | "run", (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ["all", "run"] as const) {
    const original = proto[method];
    proto[method] = function (this: { source?: string }, ...args: unknown[]) {
      storeQueries += 1;
      if (!queryShapes) return original.apply(this, args);
      // The statement and the namespace (and first part of the key) it touched.
      const first = args[0];
      const key = typeof first === "string" ? first.split(":").slice(0, 2).join(":").replace(/[0-9]+/g, "N") : "";
      const shape = `${String(this.source).replace(/\s+/g, " ").slice(0, 40)} ${key}`;
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const seen = queryShapes.get(shape) ?? { count: 0, ms: 0 };
        queryShapes.set(shape, { count: seen.count + 1, ms: seen.ms + performance.now() - started });
      }
    };
  }
}

async function startSwitchboard(e: SubjectEnv): Promise<() => Promise<void>> {
  await countStoreQueries();
  const root = e.build !== undefined ? pathToFileURL(e.build).href : e.dist ? "../dist" : "../src";
  const { configSchema } = (await import(`${root}/config.js`)) as typeof ConfigModule;
  const { Gateway } = (await import(`${root}/app.js`)) as typeof AppModule;
  const { createLogger } = (await import(`${root}/infra/log.js`)) as typeof LogModule;
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bench-tg-"));
  const unlimited = { messages: 1_000_000, windowSeconds: 60 };
  const config = configSchema.parse({
    dataDir,
    http: { port: 0 },
    llm: { baseUrl: e.llmUrl, model: "fake-model", apiKey: "sk-bench", maxRetries: 0 },
    // BENCH_TG_STREAMING=off: replies not streamed, to see what live replies cost (default: the channel's default).
    channels: { telegram: { token: e.token, apiRoot: e.apiRoot, pollTimeoutSec: 1, ...(process.env.BENCH_TG_STREAMING ? { streaming: process.env.BENCH_TG_STREAMING } : {}) } },
    access: { dmPolicy: "open", limits: { perUser: unlimited, perChat: unlimited } },
    skills: { watch: false },
    log: { level: "silent" },
  });
  const gateway = await Gateway.create(config, { log: createLogger({ level: "silent", secrets: [] }) });
  await gateway.start();
  return async () => {
    await gateway.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

/**
 * BENCH_TG_ALLOC: V8's sampling heap profiler over the burst, garbage included (what the young generation has to
 * scavenge), written as a .heapprofile that Chrome's DevTools open.
 */
let inspector: Session | undefined;
async function sampleAllocations(action: "start" | "stop", file: string): Promise<void> {
  if (action === "start") {
    inspector = new Session();
    inspector.connect();
    await inspector.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    return;
  }
  const { profile } = await inspector!.post("HeapProfiler.stopSampling");
  await writeFile(file, JSON.stringify(profile));
  inspector!.disconnect();
}

/**
 * CPU time since the last reading on the main thread and off it (Linux: /proc/self/task/<tid>/schedstat, in ns).
 * Off it are V8's workers (optimizing compiles, concurrent marking and sweeping, parallel scavenges) and libuv's
 * pool; Node names them all "node", so they are counted together. CPU that grew in a window while the main
 * thread's did not was spent there.
 */
let threadCpuSeen = { main: 0, other: 0 };
function threadCpuSinceLast(): string {
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return "not on this system";
  }
  const now = { main: 0, other: 0 };
  for (const tid of tids) {
    try {
      now[tid === String(process.pid) ? "main" : "other"] += Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended after the listing; its time went with it.
    }
  }
  // So may one that ended since the last reading: the difference never goes below zero.
  const since = (kind: "main" | "other") => (Math.max(0, now[kind] - threadCpuSeen[kind]) / 1e6).toFixed(0);
  const text = `main thread ${since("main")} ms, other threads ${since("other")} ms`;
  threadCpuSeen = now;
  return text;
}

/** How long the event loop was held (a store statement, a GC, a long task), reported with each stats reading. */
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
/** The main thread's busy share since the last reading: whether a phase was bound by it or waited on something. */
let loopUse = performance.eventLoopUtilization();
const stop = await (env.subject === "grammy" ? startGrammy(env) : startSwitchboard(env));
process.on("message", (message: ParentMessage) => {
  if (message.type === "allocations") {
    void sampleAllocations(message.action, message.file);
    return;
  }
  if (message.type === "stats") {
    // On stderr: how long the event loop was held since the last reading (a store statement, a GC, a long task).
    process.stderr.write(`${env.subject} event-loop delay since the last reading: p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms\n`);
    loopDelay.reset();
    const sinceLast = performance.eventLoopUtilization(loopUse);
    loopUse = performance.eventLoopUtilization();
    // With the monotonic clock's reading (us), which a --cpu-prof profile's timestamps use: where each phase ends.
    process.stderr.write(
      `${env.subject} event loop busy since the last reading: ${(sinceLast.utilization * 100).toFixed(0)}% of ${(sinceLast.idle + sinceLast.active).toFixed(0)} ms (monotonic ${process.hrtime.bigint() / 1000n} us)\n`,
    );
    const pauses = [...gcPauses].map(([kind, p]) => `${kind} ${p.count}x ${p.ms.toFixed(0)} ms (max ${p.max.toFixed(1)})`).join(", ");
    process.stderr.write(`${env.subject} GC pauses since the last reading: ${pauses || "none"}\n`);
    gcPauses.clear();
    process.stderr.write(`${env.subject} CPU by thread since the last reading: ${threadCpuSinceLast()}\n`);
    const cpu = process.cpuUsage();
    send({ type: "stats", cpuMicros: cpu.user + cpu.system, rss: process.memoryUsage().rss, storeQueries, gcMillis });
    return;
  }
  if (message.type === "retained") {
    // On stderr with the progress: how much of the RSS is V8's heap (committed and live) and how much is not.
    const describe = (when: string, memory: NodeJS.MemoryUsage) =>
      process.stderr.write(`${env.subject} ${when}: ${Object.entries(memory).map(([k, v]) => `${k} ${(v / 2 ** 20).toFixed(1)} MiB`).join(", ")}\n`);
    describe("after the new users", process.memoryUsage());
    // Only between measurements: a collection here would count in no CPU window.
    global.gc?.();
    setTimeout(() => {
      const memory = process.memoryUsage();
      describe("after a full GC and 1 s", memory);
      // BENCH_TG_HEAP=<file>: where the memory is, for attribution (bench/heap-summary.ts reads the snapshot).
      if (process.env.BENCH_TG_HEAP) writeHeapSnapshot(process.env.BENCH_TG_HEAP);
      send({ type: "retained", rss: memory.rss, heap: memory.heapUsed });
    }, 1_000);
    return;
  }
  if (queryShapes) {
    for (const [shape, { count, ms }] of [...queryShapes].sort((a, b) => b[1].ms - a[1].ms)) process.stderr.write(`${count}\t${ms.toFixed(1)} ms\t${shape}\n`);
  }
  void stop().finally(() => send({ type: "stopped" }));
});
// The parent went away (killed or crashed): do not linger.
process.on("disconnect", () => process.exit(0));
send({ type: "ready" });
