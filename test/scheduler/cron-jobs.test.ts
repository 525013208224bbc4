/**
 * Cron tasks run as real croner jobs. croner reads the global clock, so these tests move it with vitest's fake
 * Date and setTimeout (the scheduler on its system clock follows); the store is in memory, so no real I/O has to
 * happen while time is frozen. croner wakes every 30 s at most, so each simulated day costs real time: the
 * tests simulate no more days than they need.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OutboundTarget, SentMessage } from "../../src/core/types.js";
import type { SchedulerConfig } from "../../src/scheduler/config.js";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import type { TaskRecord } from "../../src/scheduler/types.js";
import type { Store } from "../../src/infra/store/types.js";
import { ALICE, makeScheduler, memoryStore, RecordingChannel, reminder } from "./helpers.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const schedulers: Scheduler[] = [];

afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop(0);
  vi.useRealTimers();
});

/** A started scheduler on `store`; no syncing timer, which would only cost time here. */
async function startScheduler(store: Store, channel: RecordingChannel, config: Partial<SchedulerConfig> = {}): Promise<Scheduler> {
  const scheduler = makeScheduler({ store, channel, config: { syncIntervalMs: 24 * HOUR, ...config } });
  schedulers.push(scheduler);
  await scheduler.start();
  return scheduler;
}

/** Moves the fake clock on by `ms`, letting each job fire and finish on the way. */
async function advance(ms: number, ...on: Scheduler[]): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await Promise.all(on.map((s) => s.idle()));
}

/** The task's runs, oldest first, as "slot status". */
async function runsOf(scheduler: Scheduler, task: TaskRecord): Promise<string[]> {
  const { runs } = await scheduler.runs(task.id, ALICE, 50);
  return runs.map((r) => `${new Date(r.scheduledFor).toISOString()} ${r.status}`).reverse();
}

/** A started scheduler at `now` (fake clock) with a cron reminder. */
async function cronReminder(now: string, cron: string, timezone: string, config: Partial<SchedulerConfig> = {}) {
  vi.useFakeTimers({ now: Date.parse(now), toFake: ["Date", "setTimeout", "clearTimeout"] });
  const channel = new RecordingChannel();
  const scheduler = await startScheduler(memoryStore(), channel, config);
  const { task } = await scheduler.create(reminder({ when: { cron, timezone } }), ALICE);
  return { task, channel, scheduler, advance: (ms: number) => advance(ms, scheduler), runs: () => runsOf(scheduler, task) };
}

// Simulating days of 30 s wake-ups takes seconds of real time on a busy machine.
describe("cron tasks on croner", { timeout: 60_000 }, () => {
  it("a daily 09:00 Europe/Berlin task fires at 09:00 local on both sides of the spring DST change", async () => {
    const t = await cronReminder("2026-03-27T12:00:00Z", "0 9 * * *", "Europe/Berlin");
    expect(t.task.nextRunAt).toBe(Date.parse("2026-03-28T08:00:00Z"));
    for (let i = 0; i < 3 * 24; i++) await t.advance(HOUR);
    expect(await t.runs()).toEqual([
      "2026-03-28T08:00:00.000Z delivered",
      "2026-03-29T07:00:00.000Z delivered",
      "2026-03-30T07:00:00.000Z delivered",
    ]);
    expect(t.channel.sent).toHaveLength(3);
    expect((await t.scheduler.get(t.task.id, ALICE)).nextRunAt).toBe(Date.parse("2026-03-31T07:00:00Z"));
  });

  it("and on both sides of the autumn change", async () => {
    const t = await cronReminder("2026-10-24T12:00:00Z", "0 9 * * *", "Europe/Berlin");
    for (let i = 0; i < 2 * 24; i++) await t.advance(HOUR);
    expect(await t.runs()).toEqual(["2026-10-25T08:00:00.000Z delivered", "2026-10-26T08:00:00.000Z delivered"]);
  });

  it("every weekday at 9 in Asia/Shanghai fires at 01:00 UTC, and not at the weekend", async () => {
    // Friday 00:00 UTC to Monday 02:00 UTC.
    const t = await cronReminder("2026-03-27T00:00:00Z", "0 9 * * 1-5", "Asia/Shanghai");
    for (let i = 0; i < 3 * 24 + 2; i++) await t.advance(HOUR);
    expect(await t.runs()).toEqual(["2026-03-27T01:00:00.000Z delivered", "2026-03-30T01:00:00.000Z delivered"]);
  });

  it("a cancelled cron task's job stops", async () => {
    const t = await cronReminder("2026-03-27T12:00:00Z", "0 9 * * *", "Europe/Berlin");
    expect(t.scheduler.armed).toEqual({ due: 0, cron: 1 });
    await t.scheduler.cancel(t.task.id, ALICE);
    expect(t.scheduler.armed).toEqual({ due: 0, cron: 0 });
    await t.advance(48 * HOUR);
    expect(t.channel.sent).toHaveLength(0);
  });

  it("two replicas on one store: both fire every slot, one of them runs it", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-03-27T08:58:00Z"), toFake: ["Date", "setTimeout", "clearTimeout"] });
    const store = memoryStore();
    const [channelA, channelB] = [new RecordingChannel(), new RecordingChannel()];
    const a = await startScheduler(store, channelA);
    const { task } = await a.create(reminder({ when: { cron: "* * * * *", timezone: "UTC" } }), ALICE);
    const b = await startScheduler(store, channelB);
    expect([a.armed.cron, b.armed.cron]).toEqual([1, 1]);
    for (let i = 0; i < 5; i++) await advance(MINUTE, a, b);
    expect(await runsOf(a, task)).toEqual(
      ["08:59", "09:00", "09:01", "09:02", "09:03"].map((hm) => `2026-03-27T${hm}:00.000Z delivered`),
    );
    expect(channelA.sent.length + channelB.sent.length).toBe(5);
  });

  it("a slot that comes while the previous run is still sending is skipped, not run beside it", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-03-27T08:59:30Z"), toFake: ["Date", "setTimeout", "clearTimeout"] });
    const channel = new HeldChannel();
    const scheduler = await startScheduler(memoryStore(), channel);
    const { task } = await scheduler.create(reminder({ when: { cron: "* * * * *", timezone: "UTC" } }), ALICE);
    await vi.advanceTimersByTimeAsync(3.5 * MINUTE); // 09:03:00: the 09:00 run is still sending
    expect(channel.waiting).toBe(1);
    channel.release();
    await advance(MINUTE, scheduler); // 09:04:00, sent at once
    expect(channel.waiting).toBe(0);
    expect(await runsOf(scheduler, task)).toEqual(["2026-03-27T09:00:00.000Z delivered", "2026-03-27T09:04:00.000Z delivered"]);
  });

  it("a slot that passed less than a minute before a restart is still sent, and the next one too", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-03-27T08:59:00Z"), toFake: ["Date", "setTimeout", "clearTimeout"] });
    const store = memoryStore();
    const before = await startScheduler(store, new RecordingChannel());
    const { task } = await before.create(reminder({ when: { cron: "*/5 * * * *", timezone: "UTC" } }), ALICE);
    await before.stop(0);
    vi.setSystemTime(Date.parse("2026-03-27T09:00:30Z")); // down over the 09:00 slot
    const after = await startScheduler(store, new RecordingChannel());
    await advance(5 * MINUTE, after);
    expect(await runsOf(after, task)).toEqual(["2026-03-27T09:00:00.000Z delivered", "2026-03-27T09:05:00.000Z delivered"]);
  });

  it.each([
    ["none", ["2026-03-27T09:00:00.000Z missed"], 0],
    ["latest", ["2026-03-27T09:05:00.000Z delivered"], 1],
  ] as const)("a slot fired late after a stall follows missedRecurring: %s", async (missedRecurring, runs, sent) => {
    const t = await cronReminder("2026-03-27T08:59:45Z", "*/5 * * * *", "UTC", { missedRecurring });
    // The process stalls for eight minutes: the clock moves on, no timer fires meanwhile. croner's timer then
    // fires at 09:08, two slots late.
    vi.setSystemTime(Date.parse("2026-03-27T09:07:45Z"));
    await t.advance(30_000);
    expect(await t.runs()).toEqual(runs);
    expect(t.channel.sent).toHaveLength(sent);
    expect((await t.scheduler.get(t.task.id, ALICE)).nextRunAt).toBe(Date.parse("2026-03-27T09:10:00Z"));
  });
});

/** Sends wait until released: a run that is still going. */
class HeldChannel extends RecordingChannel {
  waiting = 0;
  release: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  override async sendText(to: OutboundTarget, text: string): Promise<SentMessage[]> {
    this.waiting += 1;
    await this.gate;
    this.waiting -= 1;
    return super.sendText(to, text);
  }
}
