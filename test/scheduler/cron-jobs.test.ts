/**
 * Cron tasks run as real node-cron jobs. node-cron reads the global clock, so these tests move it with vitest's
 * fake Date and setTimeout (the scheduler on its system clock follows); the store is in memory, so no real I/O
 * has to happen while time is frozen.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import { ALICE, makeScheduler, memoryStore, RecordingChannel, reminder } from "./helpers.js";

const HOUR = 3_600_000;
let scheduler: Scheduler | undefined;

afterEach(async () => {
  await scheduler?.stop(0);
  scheduler = undefined;
  vi.useRealTimers();
});

/** A started scheduler at `now` (fake clock) with a cron reminder; returns when each run happened. */
async function cronReminder(now: string, cron: string, timezone: string) {
  vi.useFakeTimers({ now: Date.parse(now), toFake: ["Date", "setTimeout", "clearTimeout"] });
  const channel = new RecordingChannel();
  scheduler = makeScheduler({ store: memoryStore(), channel });
  await scheduler.start();
  const { task } = await scheduler.create(reminder({ when: { cron, timezone } }), ALICE);
  const s = scheduler;
  return {
    task,
    channel,
    /** Moves the clock on by `ms`, letting each job fire and finish on the way. */
    async advance(ms: number): Promise<void> {
      await vi.advanceTimersByTimeAsync(ms);
      await s.idle();
    },
    async slots(): Promise<string[]> {
      const { runs } = await s.runs(task.id, ALICE, 50);
      return runs.filter((r) => r.status === "delivered").map((r) => new Date(r.scheduledFor).toISOString()).reverse();
    },
  };
}

describe("cron tasks on node-cron", () => {
  it("a daily 09:00 Europe/Berlin task fires at 09:00 local on both sides of the spring DST change", async () => {
    const t = await cronReminder("2026-03-27T12:00:00Z", "0 9 * * *", "Europe/Berlin");
    expect(t.task.nextRunAt).toBe(Date.parse("2026-03-28T08:00:00Z"));
    for (let i = 0; i < 3 * 24; i++) await t.advance(HOUR);
    expect(await t.slots()).toEqual(["2026-03-28T08:00:00.000Z", "2026-03-29T07:00:00.000Z", "2026-03-30T07:00:00.000Z"]);
    expect(t.channel.sent).toHaveLength(3);
    expect((await scheduler!.get(t.task.id, ALICE)).nextRunAt).toBe(Date.parse("2026-03-31T07:00:00Z"));
  });

  it("and on both sides of the autumn change", async () => {
    const t = await cronReminder("2026-10-24T12:00:00Z", "0 9 * * *", "Europe/Berlin");
    for (let i = 0; i < 2 * 24; i++) await t.advance(HOUR);
    expect(await t.slots()).toEqual(["2026-10-25T08:00:00.000Z", "2026-10-26T08:00:00.000Z"]);
  });

  it("every weekday at 9 in Asia/Shanghai fires at 01:00 UTC, and not at the weekend", async () => {
    const t = await cronReminder("2026-03-26T12:00:00Z", "0 9 * * 1-5", "Asia/Shanghai");
    for (let i = 0; i < 6 * 24; i++) await t.advance(HOUR);
    expect(await t.slots()).toEqual([
      "2026-03-27T01:00:00.000Z",
      "2026-03-30T01:00:00.000Z",
      "2026-03-31T01:00:00.000Z",
      "2026-04-01T01:00:00.000Z",
    ]);
  });

  it("a cancelled cron task's job stops", async () => {
    const t = await cronReminder("2026-03-27T12:00:00Z", "0 9 * * *", "Europe/Berlin");
    expect(scheduler!.armed).toEqual({ due: 0, cron: 1 });
    await scheduler!.cancel(t.task.id, ALICE);
    expect(scheduler!.armed).toEqual({ due: 0, cron: 0 });
    await t.advance(48 * HOUR);
    expect(t.channel.sent).toHaveLength(0);
  });
});
