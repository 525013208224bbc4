/**
 * The scheduler with 100,000 pending one-shot reminders on SQLite: how fast they are created, how long a
 * restarted gateway takes to load them and how much memory they hold, and how late 1,000 of them arrive when
 * they all fall due in the same second (real clock, in-process channel, default maxConcurrentRuns).
 */
import { testOutbound } from "../test/helpers/outbound.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Channel, OutboundTarget, SentMessage } from "../src/core/types.js";
import { createLogger } from "../src/infra/log.js";
import { schedulerConfigSchema } from "../src/scheduler/config.js";
import { Scheduler, type NewTask } from "../src/scheduler/scheduler.js";
import type { Actor } from "../src/scheduler/types.js";
import { createStore, type Store } from "../src/infra/store/index.js";
import { ZonePreferences } from "../src/scheduler/zone-preferences.js";
import type { BenchResult } from "./types.js";

const PENDING = 100_000;
const DUE_TOGETHER = 1_000;
const USERS = 1_000;
const CREATE_CONCURRENCY = 32;
/** The burst is set this far after the last task is created: room for the restart and the load. */
const BURST_LEAD_MS = 20_000;

const log = createLogger({ level: "silent", secrets: [] });
const config = schedulerConfigSchema.parse({ maxActivePerUser: PENDING });

/** Records when each reminder was sent, by its text. */
export function timingChannel(sentAt: Map<string, number>): Channel {
  let counter = 0;
  return {
    name: "web",
    capabilities: { maxTextLength: 4096, maxUploadBytes: 0, edits: false, draftStreaming: false, reactions: false, buttons: false, threads: false, typing: false, voice: "any" },
    start: async () => undefined,
    stop: async () => undefined,
    status: () => ({ connected: true }),
    async sendText(_to: OutboundTarget, text: string): Promise<SentMessage[]> {
      sentAt.set(text, Date.now());
      return [{ messageId: String(++counter), sentAt: new Date() }];
    },
    sendFile: () => Promise.reject(new Error("not used")),
    download: () => Promise.reject(new Error("not used")),
  };
}

function schedulerOn(store: Store, channel?: Channel): Scheduler {
  return new Scheduler({
    config,
    zones: new ZonePreferences(store, "UTC"),
    store,
    log,
    outbound: testOutbound({ store, log, channelOf: () => channel }),
    agent: null,
    workspaceOf: () => tmpdir(),
  });
}

function task(i: number, when: NewTask["when"]): { spec: NewTask; actor: Actor } {
  const userId = `user${i % USERS}`;
  return {
    spec: {
      name: `reminder ${i}`,
      kind: "reminder",
      text: `reminder ${i}`,
      when,
      target: { channel: "web", chatId: `chat${i % USERS}` },
      chatType: "direct",
      creator: { channel: "web", userId },
    },
    actor: { kind: "user", channel: "web", userId, isOwner: false },
  };
}

async function createAll(scheduler: Scheduler, from: number, to: number, when: (i: number) => NewTask["when"]): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < to) {
        const { spec, actor } = task(next, when(next));
        next += 1;
        await scheduler.create(spec, actor);
      }
    }),
  );
}

/** 99,000 reminders days away, then 1,000 for one second a little later; returns that second. */
async function createPending(creator: Scheduler): Promise<number> {
  await createAll(creator, DUE_TOGETHER, PENDING, (i) => ({ in: `${2 + (i % 30)}d ${i % 1440}m` }));
  const burstAt = Math.ceil((Date.now() + BURST_LEAD_MS) / 1000) * 1000;
  await createAll(creator, 0, DUE_TOGETHER, () => ({ at: new Date(burstAt).toISOString() }));
  return burstAt;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** A full collection, so heap figures count what is held, not garbage (exposes gc without a node flag). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

export async function run(): Promise<BenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-scheduler-bench-"));
  try {
    let store = await createStore({ url: null, dataDir, log });
    const createStarted = performance.now();
    const burstAt = await createPending(schedulerOn(store));
    const createMs = performance.now() - createStarted;
    await store.close();

    // A restart: a new store connection and a new scheduler load everything.
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    store = await createStore({ url: null, dataDir, log });
    const sentAt = new Map<string, number>();
    const scheduler = schedulerOn(store, timingChannel(sentAt));
    const loadStarted = performance.now();
    await scheduler.start();
    const loadMs = performance.now() - loadStarted;
    collectGarbage();
    const heapAfter = process.memoryUsage().heapUsed;
    const armed = scheduler.armed.due;
    const rss = process.memoryUsage().rss;

    if (Date.now() > burstAt) throw new Error("the load took longer than the lead time; raise BURST_LEAD_MS");
    await delay(burstAt - Date.now());
    const deadline = Date.now() + 60_000;
    while (sentAt.size < DUE_TOGETHER && Date.now() < deadline) await delay(20);
    await scheduler.idle();
    const lateness = [...sentAt.values()].map((at) => at - burstAt).sort((a, b) => a - b);
    await scheduler.stop(1_000);
    await store.close();

    return {
      name: "scheduler",
      workload:
        `${PENDING} pending one-shot reminders from ${USERS} users on SQLite (${PENDING - DUE_TOGETHER} days away, ` +
        `${DUE_TOGETHER} due in the same second), created ${CREATE_CONCURRENCY} at a time; a restart loads them; ` +
        `maxConcurrentRuns ${config.maxConcurrentRuns}`,
      rows: [
        { measure: `create ${PENDING}`, value: `${(createMs / 1000).toFixed(1)} s (${Math.round(PENDING / (createMs / 1000))}/s)` },
        { measure: "load on start (the index log, all armed)", value: `${loadMs.toFixed(0)} ms (${armed} armed)` },
        { measure: "heap held after the load", value: `${mb(heapAfter - heapBefore)} (${((heapAfter - heapBefore) / armed).toFixed(0)} B/task)` },
        { measure: "process RSS after the load", value: mb(rss) },
        { measure: `delivered of the ${DUE_TOGETHER} due together`, value: `${lateness.length}` },
        { measure: "lateness p50", value: `${percentile(lateness, 50)} ms` },
        { measure: "lateness p99", value: `${percentile(lateness, 99)} ms` },
        { measure: "lateness max", value: `${lateness.at(-1) ?? NaN} ms` },
      ],
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
