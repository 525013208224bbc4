/**
 * The Telegram path, side by side in one run: a bare grammY bot making one LLM call and Switchboard (polling, SQLite),
 * each in its own child process (bench/telegram-subject.ts), against the same fake Bot API and instant fake LLM
 * served from this process. The machine is shared and noisy, so the ratios matter more than the absolute figures.
 * Sized to run in a couple of minutes on a shared 2-core machine; BENCH_TG_USERS (default 600; the issue's goal is
 * 10,000) sets how many new users write once before RSS is read, BENCH_TG_SESSION (default 300) one session's length,
 * BENCH_TG_BURST (default 400; the issue's table used 2,000) the burst's messages.
 * BENCH_TG_PROFILE=<dir> runs Switchboard under `node --cpu-prof` and writes its profile there, for attribution.
 * BENCH_TG_DIST=1 runs Switchboard from the compiled build (dist/, `npm run build` first), as it is deployed. The
 * subject runs as plain JavaScript under plain `node` (bench/telegram-subject.mjs, transpiled from the .ts at the
 * start of each run and gitignored), so that no TypeScript loader adds to its RSS and CPU: the grammY baseline
 * always, Switchboard with BENCH_TG_DIST=1; from src/ Switchboard needs tsx in its process. The cold start (process
 * start to the first getUpdates, `node dist/cli.js start`) and the RSS at that moment are measured whenever
 * dist/cli.js exists. BENCH_TG_TRIALS=<n> runs both subjects n times, alternating, and reports medians: one run's
 * ratios moved by a tenth from run to run on this machine. BENCH_TG_VERSUS=<folder>[,<folder>...] runs, in each
 * trial after Switchboard, other builds of it (`node scripts/bundle.mjs <folder>` on another commit) and adds each
 * one's column and its ratio to Switchboard's: versions side by side under the same load.
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PerformanceObserver } from "node:perf_hooks";
import ts from "typescript";
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../test/fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../test/fakes/telegram/server.js";
import { directChat, messageOf, text, type TgUser } from "../test/fakes/telegram/updates.js";
import type { ChildMessage, ParentMessage, SubjectEnv } from "./telegram-subject.js";
import { median } from "./stats.js";
import type { BenchResult } from "./types.js";

const BURST = { messages: Number(process.env.BENCH_TG_BURST ?? 400), users: 200 };
const RATES = [
  { perSecond: 50, seconds: 3 },
  { perSecond: 200, seconds: 2 },
];
const ONE_SESSION = Number(process.env.BENCH_TG_SESSION ?? 300);
const NEW_USERS = Number(process.env.BENCH_TG_USERS ?? 600);
const NEW_USERS_WAVE = 200;
/** BENCH_TG_TRIALS (default 1): how many times both subjects run, alternating; the table gives medians. */
const TRIALS = Math.max(1, Math.floor(Number(process.env.BENCH_TG_TRIALS ?? 1)));
const REPLY_DEADLINE_MS = 20_000;
/** BENCH_TG_TRACE=1: each offered rate's slowest messages, their wait split by stage, on stderr. */
const TRACE = process.env.BENCH_TG_TRACE === "1";
/** With TRACE: when the fake LLM received the request for the offered rate's message "rate N", by N. */
const modelRequestAt = new Map<number, number>();
const subjectSource = fileURLToPath(new URL("./telegram-subject.ts", import.meta.url));
const subjectScript = fileURLToPath(new URL("./telegram-subject.mjs", import.meta.url));
const compiledCli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
/** BENCH_TG_VERSUS: other Switchboard builds, run after the first in each trial, in the order given. */
const VERSUS = (process.env.BENCH_TG_VERSUS ?? "").split(",").filter(Boolean).map((folder) => resolve(folder));

interface Measures {
  cpuMsPerMessage: number;
  /** Store round trips (SQL statements) per message in the burst; 0 for grammY, which keeps no state. */
  storeQueriesPerMessage: number;
  perSecond: number;
  rates: Array<{ p50: number; p99: number }>;
  oneSession: { first100Ms: number; last100Ms: number; cpuFirst100: number; cpuLast100: number };
  rssIdle: number;
  rssAfterUsers: number;
  /** After the new users, a full GC and a quiet second: what the process keeps rather than its peak. */
  retained: { rss: number; heap: number };
}

/** Next to the source, so that its relative imports (../dist, ../src) and node_modules resolve as they would there. */
function writeSubjectScript(): void {
  const { outputText } = ts.transpileModule(readFileSync(subjectSource, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
    fileName: subjectSource,
  });
  writeFileSync(subjectScript, outputText);
}

export async function run(): Promise<BenchResult> {
  writeSubjectScript();
  // Not recorded: 12,000 parsed requests of up to ~60 KB grew this process's heap, and its GC pauses, which delay
  // the replies it timestamps, counted as the subject's latency (most in one session's last messages).
  const llm = await startFakeOpenAI({ record: false });
  llm.respondWith((request) => {
    if (TRACE) noteModelRequest(request);
    return { text: "ok" };
  });
  try {
    // BENCH_TG_ONLY=switchboard skips the baseline while iterating; the table then compares with zeros.
    const only = process.env.BENCH_TG_ONLY;
    const trials: Trial[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      if (TRIALS > 1) progress("both", `trial ${trial} of ${TRIALS}`);
      const grammy = only === "switchboard" ? skipped() : await measureSubject("grammy", llm);
      const switchboard = await measureSubject("switchboard", llm);
      const versus: Measures[] = [];
      for (const build of VERSUS) versus.push(await measureSubject("switchboard", llm, build));
      trials.push({ grammy, switchboard, versus });
    }
    return {
      name: "telegram",
      workload:
        `Switchboard from ${process.env.BENCH_TG_DIST ? "dist/ (plain node)" : "src/ (node with tsx)"}, grammY under plain node; Switchboard with ${SWITCHBOARD_NODE_FLAGS.join(" ")}; Telegram polling, fake Bot API + instant fake LLM; burst ${BURST.messages} msgs from ${BURST.users} users; ` +
        `offered ${RATES.map((r) => `${r.perSecond}/s`).join(", ")}; one session ${ONE_SESSION} msgs in turn; RSS after ${NEW_USERS} new users` +
        (TRIALS > 1 ? `; ${TRIALS} trials (each grammY then Switchboard), medians, the ratio the median of the trials' ratios` : "") +
        VERSUS.map((build, i) => `; "v${i + 1}": Switchboard built in ${build}`).join("") +
        (VERSUS.length > 0 ? ", run after Switchboard in each trial" : ""),
      rows: [...table(trials), ...(await coldStartRows(llm))],
    };
  } finally {
    await llm.close();
  }
}

interface Trial {
  grammy: Measures;
  switchboard: Measures;
  /** The BENCH_TG_VERSUS builds', in order. */
  versus: Measures[];
}

/** One row per metric: each subject's median over the trials, and the median of the trials' ratios (each trial's two runs share the machine's load). */
function table(trials: Trial[]): Array<Record<string, string>> {
  const row = (metric: string, of: (m: Measures) => number, unit: string, goal: string) => {
    const ratios = trials.map((t) => of(t.switchboard) / of(t.grammy));
    return {
      metric,
      "grammY + LLM": `${median(trials.map((t) => of(t.grammy))).toFixed(1)} ${unit}`,
      Switchboard: `${median(trials.map((t) => of(t.switchboard))).toFixed(1)} ${unit}`,
      ratio: `${median(ratios).toFixed(2)}x`,
      ...(trials.length > 1 ? { "ratio per trial": ratios.map((r) => r.toFixed(2)).join(", ") } : {}),
      ...versusColumns(trials, of, unit),
      goal,
    };
  };
  const mib = (bytes: number) => bytes / 2 ** 20;
  const storeQueries = median(trials.map((t) => t.switchboard.storeQueriesPerMessage));
  return [
    row("CPU per message (burst)", (m) => m.cpuMsPerMessage, "ms", "<= 1.5x"),
    row("throughput (burst)", (m) => m.perSecond, "msg/s", ">= 0.7x"),
    { metric: "store queries per message (burst)", "grammY + LLM": "-", Switchboard: storeQueries.toFixed(1), ratio: "", goal: "" },
    ...RATES.flatMap((rate, i) => [
      row(`latency p50 at ${rate.perSecond}/s`, (m) => m.rates[i]!.p50, "ms", ""),
      row(`latency p99 at ${rate.perSecond}/s`, (m) => m.rates[i]!.p99, "ms", rate.perSecond === 200 ? "added p99 <= 25 ms" : ""),
    ]),
    row("one session: first 100, per msg", (m) => m.oneSession.first100Ms, "ms", ""),
    row("one session: last 100, per msg", (m) => m.oneSession.last100Ms, "ms", ""),
    row("one session: last/first (time)", (m) => m.oneSession.last100Ms / m.oneSession.first100Ms, "x", "<= 1.2 (Switchboard)"),
    row("one session: CPU first 100, per msg", (m) => m.oneSession.cpuFirst100, "ms", ""),
    row("one session: CPU last 100, per msg", (m) => m.oneSession.cpuLast100, "ms", ""),
    // The subject's own CPU: unlike the time, it leaves out the fake LLM reading the longer requests.
    row("one session: last/first (CPU)", (m) => m.oneSession.cpuLast100 / m.oneSession.cpuFirst100, "x", "<= 1.2 (Switchboard)"),
    row("RSS idle", (m) => mib(m.rssIdle), "MiB", "<= 120 MiB"),
    row(`RSS after ${NEW_USERS + BURST.users + 1} users`, (m) => mib(m.rssAfterUsers), "MiB", "<= 200 MiB at 10,000"),
    row("  then after a full GC and 1 s: RSS", (m) => mib(m.retained.rss), "MiB", ""),
    row("  then after a full GC and 1 s: heap used", (m) => mib(m.retained.heap), "MiB", ""),
  ];
}

/**
 * Process start to the first getUpdates of `node dist/cli.js start`, and its RSS then (Linux), medians of 3; the goals
 * are <= 1 s and an idle RSS <= 120 MiB. The command as deployed, so its own imports (commander, doctor, the CLI's
 * subcommands) count too.
 */
async function coldStartRows(llm: FakeOpenAI): Promise<Array<Record<string, string>>> {
  const row = { "grammY + LLM": "-", ratio: "" };
  const startRow = { ...row, metric: "cold start to first getUpdates (dist, median of 3)", goal: "<= 1 s" };
  const rssRow = { ...row, metric: "  RSS of `node dist/cli.js start` then", goal: "<= 120 MiB idle" };
  if (!existsSync(compiledCli)) return [{ ...startRow, Switchboard: "no dist/ (npm run build)" }];
  const runs: Array<{ ms: number; rss: number | undefined }> = [];
  for (let i = 0; i < 3; i++) runs.push(await coldStart(llm));
  const rss = runs.map((r) => r.rss).filter((r) => r !== undefined);
  return [
    { ...startRow, Switchboard: `${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s` },
    { ...rssRow, Switchboard: rss.length === runs.length ? `${(median(rss) / 2 ** 20).toFixed(1)} MiB` : "- (no /proc)" },
  ];
}

/** A process's resident set from /proc (Linux); undefined elsewhere. */
function residentBytes(pid: number | undefined): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

async function coldStart(llm: FakeOpenAI): Promise<{ ms: number; rss: number | undefined }> {
  const tg = await startFakeTelegram();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-bench-cold-"));
  const started = performance.now();
  const child = spawn(process.execPath, [...SWITCHBOARD_NODE_FLAGS, compiledCli, "start"], {
    env: {
      PATH: process.env.PATH,
      HOME: dataDir,
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: tg.url,
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: "sk-bench",
      LLM_MODEL: "fake-model",
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_PORT: "0",
    },
    stdio: "ignore",
  });
  try {
    await tg.waitFor(() => tg.callsOf("getUpdates").length > 0, 30_000);
    return { ms: performance.now() - started, rss: residentBytes(child.pid) };
  } finally {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
    await tg.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function measureSubject(kind: SubjectEnv["subject"], llm: FakeOpenAI, build?: string): Promise<Measures> {
  const tg = await startFakeTelegram();
  const bot = await Subject.start({ subject: kind, apiRoot: tg.url, token: tg.token, llmUrl: llm.url, ...(build !== undefined ? { build } : {}) });
  // The name progress lines and profiles go by.
  const subject = build !== undefined ? `${kind} (${build})` : kind;
  try {
    const replies = new Replies(tg);
    const rssIdle = (await bot.stats()).rss;
    const users = usersFrom(1_000_000, BURST.users);

    const allocations = process.env.BENCH_TG_ALLOC;
    if (allocations && subject === "switchboard") bot.sampleAllocations("start", allocations);
    const before = await bot.stats();
    ownPauses.length = 0;
    const callsBefore = tg.calls.length;
    const started = performance.now();
    await replies.all(Array.from({ length: BURST.messages }, (_, i) => textFrom(users[i % users.length]!, `burst ${i}`)));
    const seconds = (performance.now() - started) / 1000;
    const after = await bot.stats();
    if (allocations && subject === "switchboard") bot.sampleAllocations("stop", allocations);

    const storeQueriesPerMessage = (after.storeQueries - before.storeQueries) / BURST.messages;
    progress(subject, `burst: Bot API calls per message: ${callsPerMessage(tg.calls.slice(callsBefore), BURST.messages)}; ${ownPausesSince()}`);
    progress(subject, `burst: ${(BURST.messages / seconds).toFixed(0)} msg/s, ${((after.cpuMicros - before.cpuMicros) / 1000 / BURST.messages).toFixed(2)} ms CPU/msg (GC ${((after.gcMillis - before.gcMillis) / BURST.messages).toFixed(2)} ms), ${storeQueriesPerMessage.toFixed(1)} store queries/msg, lost ${replies.lost}`);
    const rates = [];
    for (const rate of RATES) {
      const { p50, p99, stages } = await offered(replies, users, rate);
      rates.push({ p50, p99 });
      if (stages) progress(subject, `${rate.perSecond}/s: ${stages}`);
      // The subject prints the event loop's delay over each rate with its progress.
      await bot.stats();
    }

    progress(subject, `offered rates: ${JSON.stringify(rates)}, lost ${replies.lost}; ${ownPausesSince()}`);
    const oneSession = await singleSession(replies, bot);
    progress(subject, `one session: ${JSON.stringify(oneSession)}, lost ${replies.lost}; ${ownPausesSince()}`);
    // In waves, so that what is measured is the users' state and not a backlog of unanswered messages.
    const newUsers = usersFrom(2_000_000, NEW_USERS);
    for (let from = 0; from < newUsers.length; from += NEW_USERS_WAVE) {
      await replies.all(newUsers.slice(from, from + NEW_USERS_WAVE).map((user) => textFrom(user, "hello")));
    }
    progress(subject, `${NEW_USERS} new users answered, lost ${replies.lost}`);
    const rssAfterUsers = (await bot.stats()).rss;
    const retained = await bot.retained();
    return {
      cpuMsPerMessage: (after.cpuMicros - before.cpuMicros) / 1000 / BURST.messages,
      storeQueriesPerMessage,
      perSecond: BURST.messages / seconds,
      rates,
      oneSession,
      rssIdle,
      rssAfterUsers,
      retained,
    };
  } finally {
    await bot.stop();
    await tg.close();
  }
}

/** Each BENCH_TG_VERSUS build's median and the median of its ratios to Switchboard's, trial by trial. */
function versusColumns(trials: Trial[], of: (m: Measures) => number, unit: string): Record<string, string> {
  const columns: Record<string, string> = {};
  VERSUS.forEach((_, i) => {
    const ratios = trials.map((t) => of(t.versus[i]!) / of(t.switchboard));
    columns[`v${i + 1}`] = `${median(trials.map((t) => of(t.versus[i]!))).toFixed(1)} ${unit}`;
    columns[`v${i + 1} / Switchboard`] = `${median(ratios).toFixed(2)}x${trials.length > 1 ? ` (${ratios.map((r) => r.toFixed(2)).join(", ")})` : ""}`;
  });
  return columns;
}

function skipped(): Measures {
  const none = { p50: 0, p99: 0 };
  return {
    cpuMsPerMessage: 0,
    storeQueriesPerMessage: 0,
    perSecond: 0,
    rates: RATES.map(() => none),
    oneSession: { first100Ms: 0, last100Ms: 0, cpuFirst100: 0, cpuLast100: 0 },
    rssIdle: 0,
    rssAfterUsers: 0,
    retained: { rss: 0, heap: 0 },
  };
}

/** Progress on stderr: the run takes minutes on a busy machine. */
const progress = (subject: string, what: string) => process.stderr.write(`telegram bench: ${subject}: ${what}\n`);

/**
 * This process's own GC pauses since the last call (count, total, longest). The fakes and the clock of every
 * latency are here: a long pause here reads as the subject's latency, so each phase's progress names them.
 */
const ownPauses: number[] = [];
new PerformanceObserver((list) => ownPauses.push(...list.getEntries().map((entry) => entry.duration))).observe({ entryTypes: ["gc"] });
function ownPausesSince(): string {
  const pauses = ownPauses.splice(0);
  return `bench process GC: ${pauses.length}x ${pauses.reduce((a, b) => a + b, 0).toFixed(0)} ms (max ${Math.max(0, ...pauses).toFixed(1)})`;
}

/** Sends at a fixed rate from the users in turn; latency from the update's arrival to the reply. */
async function offered(replies: Replies, users: TgUser[], rate: { perSecond: number; seconds: number }) {
  const total = rate.perSecond * rate.seconds;
  const sends: TimedSend[] = [];
  modelRequestAt.clear();
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate.perSecond;
    const ahead = due - performance.now();
    if (ahead > 0) await new Promise((resolve) => setTimeout(resolve, ahead));
    sends.push(replies.sendTimed(textFrom(users[i % users.length]!, `rate ${i}`)));
  }
  const waited = await Promise.all(sends.map((send) => send.reply));
  const latencies = [...waited].sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { p50: at(0.5), p99: at(0.99), stages: TRACE ? stagesOfSlowest(sends, waited, replies.handedOut) : undefined };
}

/** The model request's message number (a line "rate N" of its last message, framed or not), and when. */
function noteModelRequest(request: FakeRequest): void {
  const content = request.body.messages?.at(-1)?.content;
  const match = typeof content === "string" ? /^rate (\d+)$/m.exec(content) : null;
  if (match) modelRequestAt.set(Number(match[1]), performance.now());
}

/**
 * The ten slowest messages' wait, from the update's queueing: until getUpdates handed it out, until the model
 * request arrived, until the reply; then the medians. Where a backlog builds: in the pickup, before the model or
 * after it.
 */
function stagesOfSlowest(sends: TimedSend[], waited: number[], handedOut: ReadonlyMap<number, number>): string {
  const stages = sends.map((send, i) => {
    const picked = (handedOut.get(send.updateId) ?? Number.NaN) - send.queuedAt;
    const modelAt = (modelRequestAt.get(i) ?? Number.NaN) - send.queuedAt;
    return { i, picked, modelAt, reply: waited[i]! };
  });
  const show = (ms: number) => (Number.isNaN(ms) ? "?" : ms.toFixed(1));
  // A stage not seen (a request the fake could not match to its message) is left out of the medians.
  const medianOf = (values: number[]) => show(median(values.filter((ms) => !Number.isNaN(ms))));
  const slowest = [...stages].sort((a, b) => b.reply - a.reply).slice(0, 10);
  return (
    `slowest (message: picked up / model request / reply, ms) ${slowest.map((s) => `${s.i}: ${show(s.picked)} / ${show(s.modelAt)} / ${show(s.reply)}`).join("; ")}; ` +
    `medians ${medianOf(stages.map((s) => s.picked))} / ${medianOf(stages.map((s) => s.modelAt))} / ${medianOf(stages.map((s) => s.reply))}`
  );
}

/** One user writes ONE_SESSION messages, each after the previous reply: does the 400th cost what the 1st did? */
async function singleSession(replies: Replies, bot: Subject) {
  const [user] = usersFrom(3_000_000, 1);
  const latencies: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < ONE_SESSION; i++) {
    if (i === 0 || i === 100) cpu.push((await bot.stats()).cpuMicros);
    if (i === ONE_SESSION - 100) cpu.push((await bot.stats()).cpuMicros);
    latencies.push(await replies.send(textFrom(user!, `in turn ${i}`)));
  }
  cpu.push((await bot.stats()).cpuMicros);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    first100Ms: mean(latencies.slice(0, 100)),
    last100Ms: mean(latencies.slice(-100)),
    cpuFirst100: (cpu[1]! - cpu[0]!) / 1000 / 100,
    cpuLast100: (cpu[3]! - cpu[2]!) / 1000 / 100,
  };
}

const usersFrom = (firstId: number, count: number): TgUser[] =>
  Array.from({ length: count }, (_, i) => ({ id: firstId + i, is_bot: false, first_name: `User${i}` }));

function textFrom(user: TgUser, body: string): Record<string, unknown> {
  return text(directChat(user), body, { from: user });
}

/** "sendMessage 1.00, getUpdates 0.12, ...": the bot's Bot API calls by method, per message. */
function callsPerMessage(calls: FakeTelegram["calls"], messages: number): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([method, n]) => `${method} ${(n / messages).toFixed(2)}`).join(", ");
}

interface TimedSend {
  updateId: number;
  queuedAt: number;
  reply: Promise<number>;
}

/** Puts updates into the fake and matches the bot's sendMessage calls to them, by reply target. */
class Replies {
  lost = 0;
  readonly #waiting = new Map<number, { t0: number; resolve: (ms: number) => void }>();
  #seen = 0;

  constructor(private readonly tg: FakeTelegram) {
    void tg.waitFor(() => this.#scan(), 24 * 3600_000).catch(() => undefined);
  }

  /** Queues the update; resolves with the milliseconds until its reply was sent. */
  send(update: Record<string, unknown>): Promise<number> {
    return this.sendTimed(update).reply;
  }

  /** When getUpdates handed out each update, by update_id. */
  get handedOut(): ReadonlyMap<number, number> {
    return this.tg.handedOut;
  }

  /** Queues the update: its update_id, when it was queued, and the milliseconds until its reply was sent. */
  sendTimed(update: Record<string, unknown>): TimedSend {
    const messageId = messageOf(update).message_id;
    const queuedAt = performance.now();
    const reply = new Promise<number>((resolve) => {
      this.#waiting.set(messageId, { t0: queuedAt, resolve });
      // A lost reply must not stall the run: it counts as the deadline, and is reported.
      setTimeout(() => {
        if (!this.#waiting.delete(messageId)) return;
        this.lost += 1;
        resolve(REPLY_DEADLINE_MS);
      }, REPLY_DEADLINE_MS).unref();
    });
    return { updateId: this.tg.addUpdate(update), queuedAt, reply };
  }

  async all(updates: Array<Record<string, unknown>>): Promise<void> {
    await Promise.all(updates.map((update) => this.send(update)));
  }

  #scan(): false {
    const { sent } = this.tg;
    for (; this.#seen < sent.length; this.#seen++) {
      const target = sent[this.#seen]!.replyTo;
      const waiter = target === undefined ? undefined : this.#waiting.get(target);
      if (!waiter) continue;
      this.#waiting.delete(target!);
      waiter.resolve(performance.now() - waiter.t0);
    }
    return false;
  }
}

function profileArgs(subject: SubjectEnv["subject"]): string[] {
  const dir = process.env.BENCH_TG_PROFILE;
  return dir && (subject === "switchboard" || process.env.BENCH_TG_PROFILE_BASELINE) ? ["--cpu-prof", `--cpu-prof-dir=${dir}/${subject}`] : [];
}

/**
 * Switchboard runs with the heap settings its Docker image and `npm start` set: the heap limit (it also caps V8's
 * heap growth) and the semi-space. Not the image's MALLOC_ARENA_MAX, which `npm start` cannot set.
 * BENCH_TG_NODE_FLAGS (space-separated) replaces them, to compare settings.
 */
const SWITCHBOARD_NODE_FLAGS = process.env.BENCH_TG_NODE_FLAGS?.split(" ").filter(Boolean) ?? ["--max-old-space-size=1024", "--max-semi-space-size=4"];

function nodeFlags(subject: SubjectEnv["subject"]): string[] {
  return subject === "switchboard" ? SWITCHBOARD_NODE_FLAGS : [];
}

/** The bot's child process. */
class Subject {
  private constructor(private readonly child: ChildProcess) {}

  static async start(env: Omit<SubjectEnv, "dist">): Promise<Subject> {
    const dist = Boolean(process.env.BENCH_TG_DIST);
    // Only Switchboard from src/ needs a TypeScript loader in its process.
    const loader = env.subject === "switchboard" && !dist && env.build === undefined ? ["--import", "tsx"] : [];
    const child = fork(subjectScript, [], {
      execArgv: [...loader, "--expose-gc", ...nodeFlags(env.subject), ...profileArgs(env.subject)],
      env: { ...process.env, SWITCHBOARD_BENCH_SUBJECT: JSON.stringify({ ...env, dist } satisfies SubjectEnv) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const subject = new Subject(child);
    await subject.next("ready");
    return subject;
  }

  async retained(): Promise<{ rss: number; heap: number }> {
    const answer = this.next("retained");
    this.child.send({ type: "retained" } satisfies ParentMessage);
    return (await answer) as { rss: number; heap: number };
  }

  sampleAllocations(action: "start" | "stop", file: string): void {
    this.child.send({ type: "allocations", action, file } satisfies ParentMessage);
  }

  async stats(): Promise<{ cpuMicros: number; rss: number; storeQueries: number; gcMillis: number }> {
    const answer = this.next("stats");
    this.child.send({ type: "stats" } satisfies ParentMessage);
    return (await answer) as { cpuMicros: number; rss: number; storeQueries: number; gcMillis: number };
  }

  async stop(): Promise<void> {
    const stopped = this.next("stopped");
    this.child.send({ type: "stop" } satisfies ParentMessage);
    await stopped;
    const exited = once(this.child, "exit");
    this.child.disconnect();
    await exited;
  }

  private next(type: ChildMessage["type"]): Promise<ChildMessage> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: ChildMessage) => {
        if (message.type !== type) return;
        cleanup();
        resolve(message);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`the bench subject exited (code ${code}) while waiting for "${type}"`));
      };
      const cleanup = () => {
        this.child.off("message", onMessage);
        this.child.off("exit", onExit);
      };
      this.child.on("message", onMessage);
      this.child.on("exit", onExit);
    });
  }
}
