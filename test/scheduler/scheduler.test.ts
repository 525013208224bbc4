import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import type { TaskCreator } from "../../src/scheduler/types.js";
import { Translator } from "../../src/infra/i18n/index.js";
import type { Store } from "../../src/infra/store/index.js";
import { until } from "../infra/store/store-contract.js";
import { ALICE, BOB, makeScheduler, ManualClock, RecordingChannel, reminder, sqliteStore, type SchedulerParts } from "./helpers.js";

const NOW = Date.parse("2026-03-28T10:00:00Z");
const MIN = 60_000;
const HOUR = 60 * MIN;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A started scheduler on a fresh SQLite file; `boot` starts another one (same clock) on a given store. */
async function setup(parts: Partial<SchedulerParts> = {}) {
  const db = await sqliteStore();
  const clock = new ManualClock(NOW);
  const channel = parts.channel ?? new RecordingChannel();
  const stores: Store[] = [db.store];
  const started: Scheduler[] = [];
  const boot = async (store: Store, on = channel): Promise<Scheduler> => {
    const scheduler = makeScheduler({ ...parts, store, clock, channel: on });
    await scheduler.start();
    // What came due while it was down is due now: on the manual clock that timer fires when time moves.
    clock.advance(0);
    started.push(scheduler);
    return scheduler;
  };
  const scheduler = await boot(db.store);
  cleanups.push(async () => {
    for (const s of started) await s.stop(0);
    for (const s of stores) await s.close();
    await db.cleanup();
  });
  /** A process restart: the scheduler stops, its store closes, and both are opened again on the same file. */
  const restart = async (current: Scheduler, on = channel): Promise<Scheduler> => {
    await current.stop(0);
    await stores.at(-1)!.close();
    const store = await db.reopen();
    stores.push(store);
    return boot(store, on);
  };
  return { scheduler, clock, channel, restart, boot, store: db.store };
}

/** Waits for the runs in progress, moving the clock on while they wait for it (retry backoff). */
async function settle(scheduler: Scheduler, clock: ManualClock, stepMs = 1_000): Promise<void> {
  let idle = false;
  void scheduler.idle().then(() => (idle = true));
  await until("the scheduler to become idle", async () => {
    if (!idle) clock.advance(stepMs);
    await delay(1);
    return idle;
  });
}

describe("one-shot reminders", () => {
  it("fires once at its time, records a receipt, and ends done", async () => {
    const { scheduler, clock, channel } = await setup();
    const { task, zone } = await scheduler.create(reminder({ when: { in: "10m" } }), ALICE);
    expect(zone).toEqual({ zone: "UTC", source: "default" });
    expect(task.nextRunAt).toBe(NOW + 10 * MIN);

    clock.advance(10 * MIN - 1);
    await scheduler.idle();
    expect(channel.sent).toHaveLength(0);

    clock.advance(1);
    await scheduler.idle();
    expect(channel.sent).toEqual([{ to: { channel: "web", chatId: "c1" }, text: "Time to drink water", messageId: "m1" }]);
    const { task: done, runs } = await scheduler.runs(task.id, ALICE, 10);
    expect(done.status).toBe("done");
    expect(runs).toEqual([
      expect.objectContaining({
        status: "delivered",
        scheduledFor: NOW + 10 * MIN,
        lateMs: 0,
        attempts: 1,
        receipts: [{ messageId: "m1", sentAt: expect.any(Number) }],
      }),
    ]);

    clock.advance(HOUR);
    await scheduler.idle();
    expect(channel.sent).toHaveLength(1);
  });

  it("resolves local times in the user's zone, else the chat's, else the default", async () => {
    const { scheduler } = await setup({ defaultTimezone: "Europe/Berlin" });
    const scope = { channel: "web" as const, chatId: "c1", userId: "alice" };
    const first = await scheduler.create(reminder({ when: { at: "2026-03-28T21:00" } }), ALICE);
    expect(first.zone.source).toBe("default");
    expect(first.task.nextRunAt).toBe(Date.parse("2026-03-28T20:00:00Z"));
    await scheduler.zones.setForChat(scope, "America/New_York");
    const second = await scheduler.create(reminder({ when: { at: "2026-03-28T21:00" } }), ALICE);
    expect(second.zone).toEqual({ zone: "America/New_York", source: "chat" });
    expect(second.task.nextRunAt).toBe(Date.parse("2026-03-29T01:00:00Z"));
    await scheduler.zones.setForUser(scope, "Asia/Shanghai");
    const third = await scheduler.create(reminder({ when: { at: "2026-03-28T21:00" } }), ALICE);
    expect(third.zone.source).toBe("user");
    expect(third.task.nextRunAt).toBe(Date.parse("2026-03-28T13:00:00Z"));
    expect(third.task.timezone).toBe("Asia/Shanghai");
  });

  it("refuses bad times with what to fix, and stores nothing", async () => {
    const { scheduler } = await setup();
    await expect(scheduler.create(reminder({ when: { at: "2026-03-28T09:00" } }), ALICE)).rejects.toMatchObject({ code: "invalid", message: expect.stringMatching(/in the past/) });
    await expect(scheduler.create(reminder({ when: { cron: "0 9 * *" } }), ALICE)).rejects.toMatchObject({ code: "invalid" });
    await expect(scheduler.create(reminder({ when: { every: "1h" }, until: "2026-03-28T10:30" }), ALICE)).rejects.toMatchObject({ code: "invalid", message: expect.stringMatching(/before the first run/) });
    expect(await scheduler.list(ALICE)).toEqual([]);
  });

  it("a failed send is retried by the outbound service, not by the scheduler", async () => {
    const channel = new RecordingChannel();
    const { scheduler, clock } = await setup({ channel, sendAttempts: 3 });
    const { task } = await scheduler.create(reminder({ when: { in: "1m" } }), ALICE);
    channel.failures = 2;
    clock.advance(MIN);
    await settle(scheduler, clock);
    expect(channel.texts()).toEqual(["Time to drink water"]);
    const { runs } = await scheduler.runs(task.id, ALICE, 1);
    expect(runs[0]).toMatchObject({ status: "delivered", attempts: 3 });
  });

  it("a send that keeps failing ends the run and the task as failed, with the error", async () => {
    const channel = new RecordingChannel();
    const { scheduler, clock } = await setup({ channel, sendAttempts: 2 });
    const { task } = await scheduler.create(reminder({ when: { in: "1m" } }), ALICE);
    channel.failures = 10;
    clock.advance(MIN);
    await settle(scheduler, clock);
    const { task: failed, runs } = await scheduler.runs(task.id, ALICE, 1);
    expect(failed.status).toBe("failed");
    expect(runs[0]).toMatchObject({ status: "failed", attempts: 2, error: "sending to web chat c1 failed: platform said 502" });
    expect(channel.failures).toBe(8);
  });
});

describe("restarts", () => {
  it("delivers overdue reminders once with a late note, and reports those past the grace period in one summary", async () => {
    const { scheduler, clock, channel, restart } = await setup();
    const callMom = await scheduler.create(reminder({ name: "call mom", text: "Call mom", when: { in: "1h" } }), ALICE);
    const payRent = await scheduler.create(reminder({ name: "pay rent", text: "Pay rent", when: { in: "90m" } }), ALICE);
    const stretch = await scheduler.create(reminder({ name: "stretch", text: "Stretch", when: { in: "5h" } }), ALICE);
    const sleep = await scheduler.create(reminder({ name: "sleep", text: "Sleep", when: { in: "10h" } }), ALICE);

    // Down from now until 8 h later: the 1 h and 90 min ones are past the 6 h grace, the 5 h one is 3 h late.
    await scheduler.stop(0);
    clock.advance(8 * HOUR);
    const second = await restart(scheduler);
    await second.idle();
    expect(channel.texts()).toEqual([
      "Stretch\n\n(Due Saturday 2026-03-28 15:00 (UTC, GMT+00:00); delivered 3 h late.)",
      "While I was offline, 2 reminders came due more than 6 h ago; too late to send, so I marked them missed:\n" +
        `• "call mom" (${callMom.task.id}), due Saturday 2026-03-28 11:00 (UTC, GMT+00:00)\n` +
        `• "pay rent" (${payRent.task.id}), due Saturday 2026-03-28 11:30 (UTC, GMT+00:00)`,
    ]);
    expect((await second.get(callMom.task.id, ALICE)).status).toBe("missed");
    expect((await second.runs(payRent.task.id, ALICE, 5)).runs).toEqual([expect.objectContaining({ status: "missed", lateMs: 6.5 * HOUR })]);
    expect((await second.runs(stretch.task.id, ALICE, 5)).runs).toEqual([expect.objectContaining({ status: "delivered", lateMs: 3 * HOUR })]);

    // Another restart sends nothing twice; the last reminder still comes on time.
    const third = await restart(second);
    await third.idle();
    expect(channel.sent).toHaveLength(2);
    clock.advanceTo(NOW + 10 * HOUR);
    await third.idle();
    expect(channel.texts().slice(2)).toEqual(["Sleep"]);
    expect((await third.get(sleep.task.id, ALICE)).status).toBe("done");
  });

  it("a run cut off mid-delivery is recorded as interrupted and not sent again after a restart", async () => {
    const hanging = new RecordingChannel();
    let inFlight = false;
    hanging.sendText = () => {
      inFlight = true;
      return new Promise(() => undefined);
    };
    const { scheduler, clock, restart } = await setup({ channel: hanging });
    const { task } = await scheduler.create(reminder({ when: { in: "1m" } }), ALICE);
    clock.advance(MIN);
    await until("the send to start", () => inFlight);

    // "Killed" inside the platform call: the claim and the running record are in the store; nothing else is.
    const survivor = new RecordingChannel();
    const revived = await restart(scheduler, survivor);
    await revived.idle();
    expect(survivor.sent).toHaveLength(0);
    const { task: after, runs } = await revived.runs(task.id, ALICE, 5);
    expect(runs).toEqual([
      expect.objectContaining({ status: "interrupted", scheduledFor: NOW + MIN, error: expect.stringMatching(/not sent again/) }),
    ]);
    expect(after.status).toBe("done");
  });

  it("recurring slots missed while down are skipped by default", async () => {
    const { scheduler, clock, channel, restart } = await setup();
    const { task } = await scheduler.create(reminder({ when: { every: "1h" } }), ALICE);
    await scheduler.stop(0);
    clock.advance(5 * HOUR + 30 * MIN);
    const second = await restart(scheduler);
    await second.idle();
    expect(channel.sent).toHaveLength(0);
    const { task: after, runs } = await second.runs(task.id, ALICE, 5);
    expect(runs).toEqual([expect.objectContaining({ status: "missed", scheduledFor: NOW + HOUR })]);
    expect(after.nextRunAt).toBe(NOW + 6 * HOUR);
    clock.advanceTo(NOW + 6 * HOUR);
    await second.idle();
    expect(channel.texts()).toEqual(["Time to drink water"]);
  });

  it("with missedRecurring: latest, the latest missed slot runs once, marked late", async () => {
    const { scheduler, clock, channel, restart } = await setup({ config: { missedRecurring: "latest" } });
    await scheduler.create(reminder({ when: { every: "1h" } }), ALICE);
    await scheduler.stop(0);
    clock.advance(5 * HOUR + 30 * MIN);
    const second = await restart(scheduler);
    await second.idle();
    expect(channel.texts()).toEqual(["Time to drink water\n\n(Due Saturday 2026-03-28 15:00 (UTC, GMT+00:00); delivered 30 min late.)"]);
  });
});

describe("in the creator's language", () => {
  const translator = new Translator("en");
  const speechOf = (creator: TaskCreator) => Promise.resolve(translator.speech(creator.locale));
  const li = { channel: "web" as const, userId: "li", locale: "zh-CN" };
  const LI = { ...ALICE, userId: "li" };

  it("the late note and the missed summary", async () => {
    const { scheduler, clock, channel, restart } = await setup({ speechOf, config: { missedRecurring: "latest" } });
    const tea = await scheduler.create(reminder({ name: "喝茶", text: "喝茶", when: { in: "1h" }, creator: li }), LI);
    await scheduler.create(reminder({ text: "喝水", when: { every: "1h" }, creator: li }), LI);
    await scheduler.create(reminder({ text: "Drink water", when: { every: "1h" } }), ALICE);
    await scheduler.stop(0);
    clock.advance(7 * HOUR + 30 * MIN);
    const second = await restart(scheduler);
    await second.idle();
    expect(channel.texts().sort()).toEqual([
      "Drink water\n\n(Due Saturday 2026-03-28 17:00 (UTC, GMT+00:00); delivered 30 min late.)",
      "喝水\n\n（原定 2026年3月28日星期六 17:00 (UTC)；晚了 30 分钟送达。）",
      `我离线期间，有 1 个提醒在 6 小时多以前就到期了；现在发送已太晚，所以我把它们标记为已错过：\n• “喝茶”（${tea.task.id}），原定 2026年3月28日星期六 11:00 (UTC)`,
    ]);
  });

  it("the notice that a task was paused", async () => {
    const channel = new RecordingChannel();
    channel.sendText = (to, text) => (text === "喝水" ? Promise.reject(new Error("blocked by the bot's settings")) : RecordingChannel.prototype.sendText.call(channel, to, text));
    const { scheduler, clock } = await setup({ channel, sendAttempts: 1, speechOf });
    const { task } = await scheduler.create(reminder({ name: "喝水", text: "喝水", when: { every: "1m" }, creator: li }), LI);
    for (let i = 1; i <= 5; i++) {
      clock.advanceTo(NOW + i * MIN);
      await scheduler.idle();
    }
    expect(channel.texts()).toEqual([
      `定时任务“喝水”（${task.id}）连续失败了 5 次，我已将它暂停。问题解决后，请让我恢复它（update_scheduled_task，paused: false）。`,
    ]);
  });
});

describe("exactly once", () => {
  it("two schedulers on one store deliver each of 50 reminders due at once exactly once", async () => {
    const { scheduler, clock, channel, boot, store } = await setup();
    for (let i = 0; i < 50; i++) await scheduler.create(reminder({ text: `reminder ${i}`, when: { in: "5m" } }), ALICE);
    const twin = await boot(store);
    clock.advance(5 * MIN);
    await Promise.all([scheduler.idle(), twin.idle()]);
    expect(channel.texts().sort()).toEqual(Array.from({ length: 50 }, (_, i) => `reminder ${i}`).sort());
  });
});

describe("recurring tasks", () => {
  it("stops after max_runs", async () => {
    const { scheduler, clock, channel } = await setup();
    const { task } = await scheduler.create(reminder({ when: { every: "1h" }, maxRuns: 2 }), ALICE);
    for (let i = 1; i <= 3; i++) {
      clock.advanceTo(NOW + i * HOUR);
      await scheduler.idle();
    }
    expect(channel.sent).toHaveLength(2);
    expect((await scheduler.get(task.id, ALICE)).status).toBe("done");
  });

  it("is paused after 5 failed runs in a row, and its creator is told; resuming brings it back", async () => {
    const channel = new RecordingChannel();
    const send = channel.sendText.bind(channel);
    let broken = true;
    channel.sendText = (to, text) => (broken && text === "Time to drink water" ? Promise.reject(new Error("blocked by the bot's settings")) : send(to, text));
    const { scheduler, clock } = await setup({ channel, sendAttempts: 1 });
    const { task } = await scheduler.create(reminder({ when: { every: "1m" } }), ALICE);
    for (let i = 1; i <= 6; i++) {
      clock.advanceTo(NOW + i * MIN);
      await scheduler.idle();
    }
    const paused = await scheduler.get(task.id, ALICE);
    expect(paused).toMatchObject({ status: "paused", consecutiveFailures: 5, nextRunAt: null, runCount: 5 });
    expect(channel.texts()).toEqual([expect.stringMatching(/^I paused the scheduled task "drink water" \(\w+\) after 5 failed runs in a row/)]);

    broken = false;
    const resumed = await scheduler.update(task.id, ALICE, { paused: false });
    expect(resumed).toMatchObject({ status: "active", consecutiveFailures: 0, nextRunAt: NOW + 7 * MIN });
    clock.advanceTo(NOW + 7 * MIN);
    await scheduler.idle();
    expect(channel.texts().at(-1)).toBe("Time to drink water");
  });

  it("a silent task sends only its content: no pause notice, no missed summary", async () => {
    const channel = new RecordingChannel();
    const { scheduler, clock, restart } = await setup({ channel, sendAttempts: 1 });
    const { task } = await scheduler.create(reminder({ when: { every: "1m" }, silent: true }), ALICE);
    const missed = await scheduler.create(reminder({ when: { in: "10m" }, silent: true }), ALICE);
    channel.failures = 5;
    for (let i = 1; i <= 5; i++) {
      clock.advanceTo(NOW + i * MIN);
      await scheduler.idle();
    }
    expect((await scheduler.get(task.id, ALICE)).status).toBe("paused");
    await scheduler.stop(0);
    clock.advance(7 * HOUR);
    const second = await restart(scheduler);
    await second.idle();
    expect((await second.get(missed.task.id, ALICE)).status).toBe("missed");
    expect(channel.sent).toEqual([]);
  });

  it("an update replaces the schedule, resolved again", async () => {
    const { scheduler } = await setup();
    const { task } = await scheduler.create(reminder({ when: { every: "1h" } }), ALICE);
    const updated = await scheduler.update(task.id, ALICE, { when: { cron: "30 8 * * *" }, text: "Stand up" });
    expect(updated).toMatchObject({ text: "Stand up", trigger: { type: "cron", expression: "30 8 * * *", timezone: "UTC" }, nextRunAt: Date.parse("2026-03-29T08:30:00Z") });
  });
});

describe("access", () => {
  it("users see and cancel only their own tasks; the owner sees and cancels all", async () => {
    const { scheduler } = await setup();
    const { task } = await scheduler.create(reminder({ when: { in: "1h" } }), ALICE);
    expect(await scheduler.list(BOB)).toEqual([]);
    expect(await scheduler.list(BOB, { everyone: true })).toEqual([]);
    await expect(scheduler.get(task.id, BOB)).rejects.toMatchObject({ code: "not_found" });
    await expect(scheduler.cancel(task.id, BOB)).rejects.toMatchObject({ code: "not_found" });
    await expect(scheduler.runs(task.id, BOB, 5)).rejects.toMatchObject({ code: "not_found" });
    expect((await scheduler.list(ALICE)).map((t) => t.id)).toEqual([task.id]);

    const owner = { ...BOB, isOwner: true };
    expect((await scheduler.list(owner, { everyone: true })).map((t) => t.id)).toEqual([task.id]);
    expect((await scheduler.cancel(task.id, owner)).status).toBe("cancelled");
    await expect(scheduler.cancel(task.id, ALICE)).rejects.toMatchObject({ code: "invalid", message: expect.stringMatching(/already ended \(cancelled\)/) });
    expect(await scheduler.list(ALICE)).toEqual([]);
  });

  it("caps each user's live tasks; the owner is exempt", async () => {
    const { scheduler } = await setup({ config: { maxActivePerUser: 2 } });
    await scheduler.create(reminder({ when: { in: "1h" } }), ALICE);
    await scheduler.create(reminder({ when: { in: "2h" } }), ALICE);
    await expect(scheduler.create(reminder({ when: { in: "3h" } }), ALICE)).rejects.toMatchObject({
      code: "limit",
      message: "You already have 2 active tasks (the limit is 2); cancel one first.",
    });
    await expect(scheduler.create(reminder({ when: { in: "3h" } }), { ...ALICE, isOwner: true })).resolves.toBeDefined();
  });

  it("a task's own run may not schedule more tasks unless it allows it", async () => {
    const { scheduler } = await setup();
    const plain = await scheduler.create(reminder({ kind: "agent_task", when: { in: "1h" } }), ALICE);
    const allowed = await scheduler.create(reminder({ kind: "agent_task", when: { in: "1h" }, allowScheduling: true }), ALICE);
    await expect(scheduler.requireMaySchedule(`task:${plain.task.id}`)).rejects.toMatchObject({ code: "denied" });
    await expect(scheduler.requireMaySchedule(`task:${allowed.task.id}`)).resolves.toBeUndefined();
    await expect(scheduler.requireMaySchedule("web:c1")).resolves.toBeUndefined();
  });
});
