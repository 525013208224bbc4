/**
 * The documented metrics not covered by metrics.test.ts move when their event happens: a reply the
 * platform refused counts under its HTTP status, the queue depth counts a running turn, and a scheduled run's
 * lateness is observed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram/server.js";
import { alice, directChat, text } from "../../fakes/telegram/updates.js";
import { closeInOrder } from "../../helpers/close.js";
import { metricValue } from "../../helpers/metrics.js";
import { eventually } from "../../helpers/wait.js";
import { ALICE, makeScheduler, ManualClock, RecordingChannel, reminder, sqliteStore } from "../../scheduler/helpers.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await closeInOrder([t, tg]);
  t = tg = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("documented metrics", () => {
  it("switchboard_send_failures_total counts a reply Telegram refused under its HTTP status", async () => {
    tg = await startFakeTelegram();
    t = await startTestGateway({
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off" } },
      access: { allowFrom: [`telegram:${alice.id}`] },
    });
    const series = { channel: "telegram", status: "400" };
    const before = await metricValue("switchboard_send_failures_total", series);
    tg.fail("sendMessage", { kind: "error", code: 400, description: "Bad Request: chat not found" });
    t.fake.enqueue({ text: "an answer that cannot be delivered" });
    tg.addUpdate(text(directChat(), "hello"));

    await eventually(async () => (await metricValue("switchboard_send_failures_total", series)) === before + 1, "the failure counted", 10_000);
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
  });

  it("switchboard_queue_depth counts a turn while it runs, and not after", async () => {
    t = await startTestGateway();
    const before = await metricValue("switchboard_queue_depth");
    let answer = (): void => {};
    t.fake.enqueue({ text: "done", heldUntil: new Promise<void>((resolve) => (answer = resolve)) });
    const reply = t.post({ chatId: "depth", userId: "alice", text: "hello" });
    await t.fake.waitForRequests(1);

    expect(await metricValue("switchboard_queue_depth")).toBe(before + 1);
    answer();
    expect((await reply).body.outcome).toBe("answered");
    expect(await metricValue("switchboard_queue_depth")).toBe(before);
  });

  it("switchboard_scheduler_lateness_seconds observes a scheduled run", async () => {
    const db = await sqliteStore();
    const clock = new ManualClock(Date.parse("2026-03-28T10:00:00Z"));
    const channel = new RecordingChannel();
    const scheduler = makeScheduler({ store: db.store, clock, channel });
    cleanups.push(async () => {
      await scheduler.stop(0);
      await db.store.close();
      await db.cleanup();
    });
    await scheduler.start();
    const count = async () => (await metricValue("switchboard_scheduler_lateness_seconds", {}, "count"));
    const before = await count();
    await scheduler.create(reminder({ when: { in: "1m" } }), ALICE);

    clock.advance(60_000);
    await eventually(() => channel.texts().length === 1, "the reminder sent");
    await eventually(async () => (await count()) === before + 1, "the lateness observed");
  });
});
