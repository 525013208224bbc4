/**
 * Usage accounting and budgets. (1) What they add to a turn: the agent's turns against the fake LLM (in this
 * process, the same for every variant) without a usage port, with accounting only, and with accounting and six
 * budgets (per person, per chat and global, daily and monthly), in interleaved rounds on SQLite: CPU and SQL
 * statements per turn. (2) No idle spend: 100 sessions and 50 pending tasks (25 reminders, 25 agent tasks due one
 * a minute) on a manual clock moved through an hour: the model calls in that hour.
 */
import { recordSql } from "../test/helpers/sql-statements.js";
import type { Agent } from "../src/agent/agent.js";
import { schedulerConfigSchema } from "../src/scheduler/config.js";
import { Scheduler } from "../src/scheduler/scheduler.js";
import { ZonePreferences } from "../src/scheduler/zone-preferences.js";
import { budgetsConfigSchema, Periods, priceLookup, UsageMeter } from "../src/usage/index.js";
import { startHarness, inboundMessage, type Harness } from "../test/agent/harness.js";
import { ManualClock } from "../test/helpers/clock.js";
import { testOutbound } from "../test/helpers/outbound.js";
import { eventually } from "../test/helpers/wait.js";
import { timingChannel } from "./scheduler.bench.js";
import type { BenchResult } from "./types.js";

const ROUNDS = 6;
const TURNS_PER_ROUND = 50;
const SESSIONS = 100;
const REMINDERS = 25;
const AGENT_TASKS = 25;
const HOUR_MS = 3_600_000;

const BUDGETS = {
  perUser: { daily: { tokens: 10_000_000 }, monthly: { cost: 1_000 } },
  perChat: { daily: { tokens: 10_000_000 } },
  global: { daily: { tokens: 100_000_000 }, monthly: { tokens: 1_000_000_000 } },
};

export async function run(): Promise<BenchResult> {
  const h = await startHarness({ llm: { prices: { input: 1, output: 2 } } });
  try {
    const statements = recordSql();
    const clock = new ManualClock(Date.now());
    const variants: Array<[string, Agent]> = [
      ["no usage port", h.makeAgent()],
      ["accounting", h.makeAgent({}, { hooks: { usage: meterOn(h, clock, {}) } })],
      ["accounting + 6 budgets", h.makeAgent({}, { hooks: { usage: meterOn(h, clock, BUDGETS) } })],
    ];
    h.fake.respondWith(() => ({ text: "Here is a short answer to your question." }));
    const totals = new Map(variants.map(([name]) => [name, { cpuMs: 0, statements: 0, turns: 0 }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, agent] of variants) {
        const before = { cpu: process.cpuUsage(), statements: statements.sources.length };
        for (let i = 0; i < TURNS_PER_ROUND; i++) await h.turn(`question ${i}`, { agent, sessionKey: `web:${name}:${i % 10}` });
        const cpu = process.cpuUsage(before.cpu);
        // The first round warms up every variant's code and is not counted.
        if (round === 0) continue;
        const sum = totals.get(name)!;
        sum.cpuMs += (cpu.user + cpu.system) / 1_000;
        sum.statements += statements.sources.length - before.statements;
        sum.turns += TURNS_PER_ROUND;
      }
    }
    const base = totals.get("no usage port")!;
    const rows: BenchResult["rows"] = [...totals].map(([name, sum]) => ({
      subject: name,
      "CPU per turn": `${(sum.cpuMs / sum.turns).toFixed(3)} ms`,
      "vs no port": `${(sum.cpuMs / base.cpuMs).toFixed(2)}x`,
      "SQL statements per turn": (sum.statements / sum.turns).toFixed(1),
      "added statements": ((sum.statements - base.statements) / sum.turns).toFixed(1),
    }));
    rows.push(await idleHour(h));
    return {
      name: "usage",
      workload: `${ROUNDS - 1} rounds of ${TURNS_PER_ROUND} one-step turns per variant (after one to warm up), SQLite, fake LLM in-process; then ${SESSIONS} sessions and ${REMINDERS} reminders + ${AGENT_TASKS} agent tasks through an hour of a manual clock`,
      rows,
    };
  } finally {
    await h.close();
  }
}

function meterOn(h: Harness, clock: ManualClock, budgets: unknown): UsageMeter {
  return new UsageMeter({
    config: budgetsConfigSchema.parse(budgets),
    tallies: h.store.tallies("usage"),
    coordinator: h.store.coordinator,
    periods: new Periods("UTC"),
    clock,
    priceOf: priceLookup(h.config.llm),
    isOwner: () => false,
  });
}

/** The model calls of an idle hour: 100 sessions that said something before it, the tasks due in it. */
async function idleHour(h: Harness): Promise<Record<string, string | number>> {
  const clock = new ManualClock(Date.now());
  const agent = h.makeAgent({}, { hooks: { usage: meterOn(h, clock, BUDGETS) } });
  for (let i = 0; i < SESSIONS; i++) await h.turn("hello", { agent, sessionKey: `web:idle-${i}`, message: inboundMessage("hello", { chat: { id: `chat-${i}`, type: "direct" } }) });
  const sent = new Map<string, number>();
  const scheduler = new Scheduler({
    config: schedulerConfigSchema.parse({ maxActivePerUser: 1_000 }),
    zones: new ZonePreferences(h.store, "UTC"),
    store: h.store,
    log: h.log,
    outbound: testOutbound({ store: h.store, log: h.log, channelOf: () => timingChannel(sent) }),
    agent,
    workspaceOf: () => h.workspaceDir,
    clock,
  });
  for (let i = 0; i < REMINDERS + AGENT_TASKS; i++) {
    const userId = `user-${i}`;
    await scheduler.create(
      {
        name: `task ${i}`,
        kind: i < REMINDERS ? "reminder" : "agent_task",
        text: `task ${i}`,
        when: { in: `${i + 1} minutes` },
        target: { channel: "web", chatId: `chat-${i}` },
        chatType: "direct",
        creator: { channel: "web", userId },
      },
      { kind: "user", channel: "web", userId, isOwner: false },
    );
  }
  await scheduler.start();
  const before = h.fake.requests.length;
  const start = clock.now();
  for (let minute = 1; minute <= 60; minute++) {
    clock.advanceTo(start + minute * 60_000);
    const due = Math.min(minute, REMINDERS + AGENT_TASKS);
    await eventually(() => sent.size >= due, `${due} tasks delivered`, 10_000);
  }
  await scheduler.stop(1_000);
  const calls = h.fake.requests.length - before;
  return {
    subject: `idle hour: ${SESSIONS} sessions, ${REMINDERS} reminders + ${AGENT_TASKS} agent tasks due`,
    "CPU per turn": "",
    "vs no port": "",
    "SQL statements per turn": "",
    "added statements": `model calls in the hour: ${calls} (the agent tasks' own: ${AGENT_TASKS}; other: ${calls - AGENT_TASKS}); ${sent.size} delivered in ${HOUR_MS / 60_000} simulated minutes`,
  };
}
