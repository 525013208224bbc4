/**
 * The Telegram path as users run it, side by side in one run: Switchboard started by its command (`node dist/cli.js
 * start`, the shipped configuration, log level info) against a plain grammY bot that answers each text with one raw
 * `fetch` to the model (bench/telegram-baseline.ts), each its own process (bench/telegram-process.ts), both long
 * polling the same fake Bot API and calling the same instant fake model, served from this process. Figures are the
 * whole process's, from /proc: CPU ticks of all its threads and its resident set. `npm run build` first.
 * The machine is shared and noisy: CPU is counted in ticks, not wall time, and ratios within a trial are what to
 * read. BENCH_TG_TRIALS=<n> runs both n times, alternating, and reports medians and each trial's ratio.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from "../test/fakes/openai-server.js";
import { startFakeTelegram, type FakeTelegram } from "../test/fakes/telegram/server.js";
import { directChat, messageOf, text, type TgUser } from "../test/fakes/telegram/updates.js";
import { median } from "./stats.js";
import { compiledCli, Subject, writeBaselineScript, type SubjectKind } from "./telegram-process.js";
import type { BenchResult } from "./types.js";

const BURST = { messages: Number(process.env.BENCH_TG_BURST ?? 2_000), users: 200 };
const RATES = [
  { perSecond: 50, seconds: 4 },
  { perSecond: 200, seconds: 5 },
];
const ONE_SESSION = Number(process.env.BENCH_TG_SESSION ?? 500);
const NEW_USERS = Number(process.env.BENCH_TG_USERS ?? 10_000);
const NEW_USERS_WAVE = 200;
const TRIALS = Math.max(1, Math.floor(Number(process.env.BENCH_TG_TRIALS ?? 1)));
/**
 * A reply later than this is counted lost. Long: on a shared machine a subject may answer a burst at 15 msg/s, and
 * the last of 2,000 messages queued at once then waits minutes, not lost.
 */
const REPLY_DEADLINE_MS = 300_000;
/** BENCH_TG_TRACE=1: each offered rate's slowest messages, their wait split by stage, on stderr. */
const TRACE = process.env.BENCH_TG_TRACE === "1";
/** With TRACE: when the fake LLM received the request for the offered rate's message "rate N", by N. */
const modelRequestAt = new Map<number, number>();
/** BENCH_TG_VERSUS: other Switchboard builds (`node scripts/bundle.mjs <folder>`), run after it in each trial. */
const VERSUS = (process.env.BENCH_TG_VERSUS ?? "").split(",").filter(Boolean).map((folder) => resolve(folder));
/** Node's flags for Switchboard: none, as `node dist/cli.js start` (BENCH_TG_NODE_FLAGS to compare settings). */
const NODE_FLAGS = process.env.BENCH_TG_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
/** BENCH_TG_CONFIG: YAML added to Switchboard's configuration, to compare settings (e.g. "log: { level: warn }"). */
const EXTRA_CONFIG = process.env.BENCH_TG_CONFIG;
/** BENCH_TG_HEAP=<dir>: a heap snapshot of Switchboard after the new users (`npx tsx bench/heap-summary.ts <file>`). */
const HEAP_DIR = process.env.BENCH_TG_HEAP ? resolve(process.env.BENCH_TG_HEAP) : undefined;

interface Measures {
  cpuMsPerMessage: number;
  perSecond: number;
  rates: Array<{ p50: number; p99: number }>;
  oneSession: { cpuMsPerMessage: number; cpuFirst100: number; cpuLast100: number; first100Ms: number; last100Ms: number };
  startMs: number;
  rssIdle: number;
  rssAfterUsers: number;
}

interface Trial {
  grammy: Measures;
  switchboard: Measures;
  /** The BENCH_TG_VERSUS builds', in order. */
  versus: Measures[];
}

export async function run(): Promise<BenchResult> {
  writeBaselineScript();
  if (HEAP_DIR) mkdirSync(HEAP_DIR, { recursive: true });
  // Not recorded: thousands of parsed requests grew this process's heap, and its GC pauses, which delay the replies
  // it timestamps, counted as the subject's latency.
  const llm = await startFakeOpenAI({ record: false });
  llm.respondWith((request) => {
    if (TRACE) noteModelRequest(request);
    return { text: "ok" };
  });
  try {
    const trials: Trial[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      if (TRIALS > 1) progress("both", `trial ${trial} of ${TRIALS}`);
      const grammy = await measureSubject("grammy", llm);
      const switchboard = await measureSubject("switchboard", llm);
      const versus: Measures[] = [];
      for (const build of VERSUS) versus.push(await measureSubject("switchboard", llm, `${build}/cli.js`));
      trials.push({ grammy, switchboard, versus });
    }
    return {
      name: "telegram",
      workload:
        `\`node ${[...NODE_FLAGS, "dist/cli.js"].join(" ")} start\` (shipped config, log level info, open DMs, no rate limits) against grammY + raw fetch, ` +
        `both long polling a fake Bot API, instant fake model; burst ${BURST.messages} msgs from ${BURST.users} users; ` +
        `offered ${RATES.map((r) => `${r.perSecond}/s for ${r.seconds} s`).join(", ")}; one user's ${ONE_SESSION} msgs in turn; RSS after ${NEW_USERS} new users` +
        (TRIALS > 1 ? `; ${TRIALS} trials (each grammY then Switchboard), medians, the ratio the median of the trials' ratios` : "") +
        VERSUS.map((build, i) => `; "v${i + 1}": Switchboard built in ${build}`).join(""),
      rows: table(trials),
    };
  } finally {
    await llm.close();
  }
}

/** One row per metric: each subject's median over the trials, and the median of the trials' ratios (each trial's runs share the machine's load). */
function table(trials: Trial[]): Array<Record<string, string>> {
  const each = (values: number[], digits = 2) => (trials.length > 1 ? ` (${values.map((v) => v.toFixed(digits)).join(", ")})` : "");
  const figures = (of: (m: Measures) => number, unit: string) => ({
    "grammY + fetch": `${median(trials.map((t) => of(t.grammy))).toFixed(1)} ${unit}`,
    Switchboard: `${median(trials.map((t) => of(t.switchboard))).toFixed(1)} ${unit}`,
  });
  const row = (metric: string, of: (m: Measures) => number, unit: string, goal = "") => {
    const ratios = trials.map((t) => of(t.switchboard) / of(t.grammy));
    return { metric, ...figures(of, unit), "vs baseline": `${median(ratios).toFixed(2)}x${each(ratios)}`, ...versusColumns(trials, of, unit), goal };
  };
  /** Switchboard's figure minus the baseline's: latency the gateway adds. */
  const added = (metric: string, of: (m: Measures) => number, goal = "") => {
    const sums = trials.map((t) => of(t.switchboard) - of(t.grammy));
    return { metric, ...figures(of, "ms"), "vs baseline": `+${median(sums).toFixed(1)} ms${each(sums, 1)}`, ...versusColumns(trials, of, "ms"), goal };
  };
  const mib = (bytes: number) => bytes / 2 ** 20;
  return [
    row("CPU per message, burst", (m) => m.cpuMsPerMessage, "ms", "<= 1.5x"),
    row("CPU per message, one user's session", (m) => m.oneSession.cpuMsPerMessage, "ms"),
    row("throughput, burst", (m) => m.perSecond, "msg/s"),
    ...RATES.flatMap((rate, i) => [
      added(`latency p50 at ${rate.perSecond}/s`, (m) => m.rates[i]!.p50),
      added(`latency p99 at ${rate.perSecond}/s`, (m) => m.rates[i]!.p99, rate.perSecond === 200 ? "<= +25 ms" : ""),
    ]),
    row("one session: CPU of the last 100 / the first 100", (m) => m.oneSession.cpuLast100 / m.oneSession.cpuFirst100, "x"),
    row("one session: time of the last 100 / the first 100", (m) => m.oneSession.last100Ms / m.oneSession.first100Ms, "x"),
    row("start to the first getUpdates", (m) => m.startMs, "ms"),
    row("RSS idle", (m) => mib(m.rssIdle), "MiB"),
    row(`RSS after ${NEW_USERS} new users`, (m) => mib(m.rssAfterUsers), "MiB", "<= 200 MiB"),
  ];
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

async function measureSubject(kind: SubjectKind, llm: FakeOpenAI, cli = compiledCli): Promise<Measures> {
  const tg = await startFakeTelegram();
  const bot = await Subject.start({
    kind,
    tg,
    llmUrl: llm.url,
    cli,
    nodeFlags: NODE_FLAGS,
    ...(EXTRA_CONFIG ? { extraConfig: EXTRA_CONFIG } : {}),
    ...(HEAP_DIR ? { heapDir: HEAP_DIR } : {}),
  });
  const subject = kind === "switchboard" && cli !== compiledCli ? `switchboard (${cli})` : kind;
  try {
    const replies = new Replies(tg);
    // A second's quiet after the first poll: what it holds once started, not while it loads.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssIdle = bot.stats().rss;
    const users = usersFrom(1_000_000, BURST.users);

    const before = bot.stats();
    const linesBefore = bot.logLines();
    ownPauses.length = 0;
    const callsBefore = tg.calls.length;
    const started = performance.now();
    await replies.all(Array.from({ length: BURST.messages }, (_, i) => textFrom(users[i % users.length]!, `burst ${i}`)));
    const seconds = (performance.now() - started) / 1000;
    const after = bot.stats();
    const cpuMsPerMessage = (after.cpuMs - before.cpuMs) / BURST.messages;
    progress(subject, `burst: ${(BURST.messages / seconds).toFixed(0)} msg/s, ${cpuMsPerMessage.toFixed(2)} ms CPU/msg, log lines/msg ${((bot.logLines() - linesBefore) / BURST.messages).toFixed(2)}, lost ${replies.lost}`);
    progress(subject, `burst: Bot API calls per message: ${callsPerMessage(tg.calls.slice(callsBefore), BURST.messages)}; ${ownPausesSince()}`);

    const rates = [];
    for (const rate of RATES) {
      const { p50, p99, stages } = await offered(replies, users, rate);
      rates.push({ p50, p99 });
      if (stages) progress(subject, `${rate.perSecond}/s: ${stages}`);
    }
    progress(subject, `offered rates: ${JSON.stringify(rates)}, lost ${replies.lost}; ${ownPausesSince()}`);

    const oneSession = await singleSession(replies, bot);
    progress(subject, `one session: ${JSON.stringify(oneSession)}, lost ${replies.lost}; ${ownPausesSince()}`);

    // In waves, so that what is measured is the users' state and not a backlog of unanswered messages.
    const newUsers = usersFrom(2_000_000, NEW_USERS);
    for (let from = 0; from < newUsers.length; from += NEW_USERS_WAVE) {
      await replies.all(newUsers.slice(from, from + NEW_USERS_WAVE).map((user) => textFrom(user, "hello")));
    }
    const rssAfterUsers = bot.stats().rss;
    progress(subject, `${NEW_USERS} new users answered, RSS ${(rssAfterUsers / 2 ** 20).toFixed(1)} MiB, lost ${replies.lost}`);
    const snapshot = await bot.heapSnapshot();
    if (snapshot) progress(subject, `heap snapshot: ${snapshot}`);
    return { cpuMsPerMessage, perSecond: BURST.messages / seconds, rates, oneSession, startMs: bot.startMs, rssIdle, rssAfterUsers };
  } finally {
    await bot.stop();
    await tg.close();
  }
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

/** One user writes ONE_SESSION messages, each after the previous reply: what a turn costs, and whether it grows with the session. */
async function singleSession(replies: Replies, bot: Subject) {
  const [user] = usersFrom(3_000_000, 1);
  const latencies: number[] = [];
  const cpu = [bot.stats().cpuMs];
  for (let i = 0; i < ONE_SESSION; i++) {
    if (i === 100 || i === ONE_SESSION - 100) cpu.push(bot.stats().cpuMs);
    latencies.push(await replies.send(textFrom(user!, `in turn ${i}`)));
  }
  cpu.push(bot.stats().cpuMs);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    cpuMsPerMessage: (cpu.at(-1)! - cpu[0]!) / ONE_SESSION,
    cpuFirst100: (cpu[1]! - cpu[0]!) / 100,
    cpuLast100: (cpu.at(-1)! - cpu.at(-2)!) / 100,
    first100Ms: mean(latencies.slice(0, 100)),
    last100Ms: mean(latencies.slice(-100)),
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
