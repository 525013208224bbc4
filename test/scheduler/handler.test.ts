import { afterEach, describe, expect, it } from "vitest";
import { createScheduledHandler } from "../../src/handlers/scheduled.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { ToolContext } from "../../src/core/tools.js";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import { assertToolDefinitionsValid } from "../handlers/tool-rules.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { makeScheduler, ManualClock, RecordingChannel, silentLog, sqliteStore } from "./helpers.js";
import { definitionsOf } from "../helpers/handler-spec.js";

const NOW = Date.parse("2026-03-28T10:00:00Z");
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function tools(defaultTimezone = "Europe/Berlin") {
  const db = await sqliteStore();
  const clock = new ManualClock(NOW);
  const channel = new RecordingChannel();
  const scheduler: Scheduler = makeScheduler({ store: db.store, clock, channel, defaultTimezone });
  await scheduler.start();
  const registry = new HandlerRegistry({ log: silentLog, defaultTimeoutMs: 5_000 });
  const scheduled = createScheduledHandler(scheduler);
  registry.register(scheduled);
  close = async () => {
    await scheduler.stop(0);
    await db.store.close();
    await db.cleanup();
  };
  const call = (name: string, input: unknown, ctx: Partial<ToolContext> = {}) =>
    registry.executeByTool(name, input, makeToolContext({ senderId: "alice", chatId: "c1", ...ctx }));
  return { scheduler, clock, channel, call, definitions: definitionsOf(scheduled) };
}

describe("the scheduled handler", () => {
  it("its six tools follow the shared rules", async () => {
    const { definitions } = await tools();
    assertToolDefinitionsValid(definitions);
    expect(definitions.map((d) => d.name)).toEqual([
      "schedule_task",
      "list_scheduled_tasks",
      "cancel_scheduled_task",
      "update_scheduled_task",
      "trigger_scheduled_task",
      "query_task_executions",
    ]);
  });

  it("schedule_task answers with the id, next runs in the user's zone, and a sentence to confirm", async () => {
    const { call } = await tools();
    const result = await call("schedule_task", { name: "standup", message: "Standup!", when: { cron: "0 9 * * 1-5" } });
    expect(result).toMatchObject({
      ok: true,
      output: {
        task_id: expect.stringMatching(/^[2-9a-z]{8}$/),
        kind: "reminder",
        message: "Standup!",
        schedule: 'cron "0 9 * * 1-5" (Europe/Berlin)',
        timezone: "Europe/Berlin",
        timezone_source: "default",
        next_runs: [
          "Monday 2026-03-30 09:00 (Europe/Berlin, GMT+02:00)",
          "Tuesday 2026-03-31 09:00 (Europe/Berlin, GMT+02:00)",
          "Wednesday 2026-04-01 09:00 (Europe/Berlin, GMT+02:00)",
        ],
        confirm: expect.stringMatching(
          /^Reminder "standup" \(\w{8}\) runs every weekday at 9:00; the first run is Monday 2026-03-30 09:00 \(Europe\/Berlin, GMT\+02:00\), in 1 d 21 h\.$/,
        ),
      },
    });
  });

  it("bad input is an invalid_input error saying what to fix", async () => {
    const { call } = await tools();
    expect(await call("schedule_task", { name: "x", message: "x", when: { at: "2026-03-28T08:00" } })).toMatchObject({
      ok: false,
      code: "invalid_input",
      error: expect.stringMatching(/is in the past \(it is now Saturday 2026-03-28 11:00 \(Europe\/Berlin/),
    });
    expect(await call("schedule_task", { name: "x", message: "x", when: { cron: "0 9 * * *", timezone: "Berlin" } })).toMatchObject({
      ok: false,
      code: "invalid_input",
      error: expect.stringMatching(/not an IANA time zone/),
    });
    expect(await call("schedule_task", { name: "x", message: "x", when: { in: "10m", at: "2026-03-29T09:00" } })).toMatchObject({
      ok: false,
      code: "invalid_input",
    });
  });

  it("lists, updates, triggers, queries and cancels the user's own task; another user finds nothing", async () => {
    const { call, channel } = await tools();
    const created = await call("schedule_task", { name: "water", message: "Drink water", when: { every: "2h" } });
    const id = (created as { output: { task_id: string } }).output.task_id;
    expect(await call("list_scheduled_tasks", {})).toMatchObject({ ok: true, output: { count: 1, tasks: [{ task_id: id }] } });
    expect(await call("list_scheduled_tasks", {}, { senderId: "bob" })).toMatchObject({ ok: true, output: { count: 0 } });
    expect(await call("cancel_scheduled_task", { task_id: id }, { senderId: "bob" })).toMatchObject({ ok: false, error: expect.stringMatching(/No task/) });

    expect(await call("update_scheduled_task", { task_id: id, message: "Drink more water", max_runs: 3 })).toMatchObject({
      ok: true,
      output: { message: "Drink more water", max_runs: 3 },
    });
    expect(await call("trigger_scheduled_task", { task_id: id })).toMatchObject({
      ok: true,
      output: { run: { reason: "manual", status: "delivered", receipts: ["m1"] } },
    });
    expect(channel.texts()).toEqual(["Drink more water"]);
    expect(await call("query_task_executions", { task_id: id })).toMatchObject({
      ok: true,
      output: { runs: [{ reason: "manual", status: "delivered", scheduled_for: "Saturday 2026-03-28 11:00 (Europe/Berlin, GMT+01:00)" }] },
    });
    expect(await call("cancel_scheduled_task", { task_id: id })).toMatchObject({ ok: true, output: { status: "cancelled" } });
    expect(await call("list_scheduled_tasks", {})).toMatchObject({ ok: true, output: { count: 0 } });
  });

  it("inside a task's own run, scheduling is refused unless the task allows it", async () => {
    const { call } = await tools();
    const created = await call("schedule_task", { name: "digest", kind: "agent_task", message: "Summarize the news", when: { in: "1h" } });
    const id = (created as { output: { task_id: string } }).output.task_id;
    expect(await call("schedule_task", { name: "again", message: "loop", when: { in: "1m" } }, { sessionKey: `task:${id}` })).toMatchObject({
      ok: false,
      code: "denied",
    });
  });
});
