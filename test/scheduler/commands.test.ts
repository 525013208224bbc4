import { afterEach, describe, expect, it } from "vitest";
import type { ChatCommand, CommandContext } from "../../src/core/commands.js";
import type { InboundMessage } from "../../src/core/types.js";
import { schedulerCommands } from "../../src/scheduler/commands.js";
import { parseReminder } from "../../src/scheduler/natural.js";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import { makeScheduler, ManualClock, RecordingChannel, silentLog, sqliteStore } from "./helpers.js";
import { ENGLISH } from "../../src/infra/i18n/index.js";

/** Saturday 2026-03-28 22:30 UTC: already Sunday 06:30 in Shanghai. */
const NOW = Date.parse("2026-03-28T22:30:00Z");

describe("parseReminder", () => {
  it.each([
    ["in 10m stretch", { in: "10m" }, "stretch"],
    ["in 20 minutes to take the pizza out", { in: "20 minutes" }, "take the pizza out"],
    ["in 1 hour 30 minutes call mom", { in: "1 hour 30 minutes" }, "call mom"],
    ["tomorrow 9am standup", { at: "2026-03-30T09:00" }, "standup"],
    ["tomorrow standup", { at: "2026-03-30T09:00" }, "standup"],
    ["next friday 3pm review the budget", { at: "2026-04-03T15:00" }, "review the budget"],
    ["on March 31 at 10:15 dentist", { at: "2026-03-31T10:15" }, "dentist"],
    ["every weekday 9:00 standup", { cron: "0 9 * * 1-5" }, "standup"],
    ["every monday at 10am review", { cron: "0 10 * * 1" }, "review"],
    ["every day at 7:30pm take pills", { cron: "30 19 * * *" }, "take pills"],
    ["every 2 hours drink water", { every: "2 hours" }, "drink water"],
    ["every hour stretch", { every: "1 hour" }, "stretch"],
    ["明天早上9点 开会", { at: "2026-03-30T09:00" }, "开会"],
    ["明天早上9点开会", { at: "2026-03-30T09:00" }, "开会"],
    ["下午3点半 喝水", { at: "2026-03-29T15:30" }, "喝水"],
    ["10分钟后 喝水", { in: "10m" }, "喝水"],
    ["半小时后 提醒我 喝水", { in: "0.5h" }, "喝水"],
    ["每天早上9点 喝水", { cron: "0 9 * * *" }, "喝水"],
    ["每个工作日9点 站会", { cron: "0 9 * * 1-5" }, "站会"],
    ["每周一上午10点 周会", { cron: "0 10 * * 1" }, "周会"],
    ["每30分钟 起来走走", { every: "30m" }, "起来走走"],
  ])("%s", (input, when, text) => {
    // Times are read in the user's zone: Shanghai, where it is Sunday morning.
    expect(parseReminder(input, NOW, "Asia/Shanghai")).toEqual({ when, text });
  });

  it.each(["", "in 10m", "stretch later maybe", "every fortnight stretch"])("finds no reminder in %j", (input) => {
    expect(parseReminder(input, NOW, "Asia/Shanghai")).toBeNull();
  });
});

describe("slash commands", () => {
  let scheduler: Scheduler | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await scheduler?.stop(0);
    await close?.();
  });

  async function commands() {
    const db = await sqliteStore();
    const clock = new ManualClock(NOW);
    const channel = new RecordingChannel();
    scheduler = makeScheduler({ store: db.store, clock, channel, defaultTimezone: "Europe/Berlin" });
    await scheduler.start();
    close = async () => {
      await db.store.close();
      await db.cleanup();
    };
    const table = new Map(schedulerCommands(scheduler).map((c) => [c.name, c] as [string, ChatCommand]));
    const reply = (name: string, args: string, userId = "alice") => table.get(name)!.run(args, context(userId));
    const run = async (name: string, args: string, userId = "alice") => {
      const answer = await reply(name, args, userId);
      return typeof answer === "string" ? answer : answer.text;
    };
    return { run, reply, clock, channel, scheduler };
  }

  it("/remind sets a reminder that arrives; /tasks lists it; /cancel removes it", async () => {
    const { run, reply: answer, clock, channel, scheduler: s } = await commands();
    const reply = await run("remind", "in 10m stretch your legs");
    expect(reply).toMatch(/^Reminder "stretch your legs" \((\w{8})\) is set for Saturday 2026-03-28 23:40 \(Europe\/Berlin, GMT\+01:00\), in 10 min\.\nCancel it with \/cancel \1$/);
    const id = /\/cancel (\w+)/.exec(reply)![1]!;
    await run("remind", "tomorrow 9am standup");
    const listed = await answer("tasks", "");
    const list = typeof listed === "string" ? listed : listed.text;
    expect(typeof listed === "string" ? [] : listed.buttons?.flat().map((b) => b.run)).toEqual([`/cancel ${id}`, expect.stringMatching(/^\/cancel \w{8}$/)]);
    expect(list).toMatch(new RegExp(`^Your tasks \\(2\\):\\n${id}  reminder "stretch your legs": next Saturday 2026-03-28 23:40`));
    expect(list).toContain('reminder "standup": next Sunday 2026-03-29 09:00 (Europe/Berlin, GMT+02:00), once');
    expect(await run("tasks", "", "bob")).toBe("You have no reminders or scheduled tasks. Set one with /remind.");
    expect(await run("cancel", id, "bob")).toMatch(/^No task "\w+" of yours exists/);

    clock.advance(10 * 60_000);
    await s.idle();
    expect(channel.texts()).toEqual(["stretch your legs"]);
    expect(await run("cancel", id)).toMatch(/already ended \(done\)/);
  });

  it("/remind in Chinese, in the user's own time zone", async () => {
    const { run } = await commands();
    expect(await run("timezone", "Asia/Shanghai")).toBe(
      "Your time zone is now Asia/Shanghai: it is Sunday 2026-03-29 06:30 (Asia/Shanghai, GMT+08:00). New reminders use it.",
    );
    expect(await run("remind", "明天早上9点 开会")).toMatch(/^Reminder "开会" \(\w{8}\) is set for Monday 2026-03-30 09:00 \(Asia\/Shanghai, GMT\+08:00\), in 1 d 2 h\./);
    expect(await run("remind", "每个工作日9点 站会")).toMatch(/runs every weekday at 9:00; the first run is Monday 2026-03-30 09:00 \(Asia\/Shanghai/);
  });

  it("answers bad input with what to do", async () => {
    const { run } = await commands();
    expect(await run("remind", "sometime soon maybe")).toMatch(/^Usage: \/remind <when> <what>/);
    expect(await run("remind", "every 10 seconds spam")).toBe("Runs would be 10 s apart; the shortest interval allowed is 1 min.");
    expect(await run("timezone", "Mars/Olympus")).toMatch(/"Mars\/Olympus" is not an IANA time zone/);
    expect(await run("timezone", "chat")).toBe("Usage: /timezone chat Area/City");
    expect(await run("cancel", "")).toBe("Usage: /cancel <id>. /tasks shows the ids.");
    expect(await run("timezone", "")).toMatch(/^Your time zone is Europe\/Berlin \(the default\)/);
    expect(await run("timezone", "chat America/New_York")).toMatch(/This chat's time zone is now America\/New_York/);
    expect(await run("timezone", "", "bob")).toMatch(/^Your time zone is America\/New_York \(this chat's\)/);
  });
});

function context(userId: string): CommandContext {
  const message: InboundMessage = {
    id: `web:${userId}-1`,
    platformMessageId: `${userId}-1`,
    channel: "web",
    chat: { id: "c1", type: "group" },
    sender: { id: userId, name: userId },
    text: "",
    attachments: [],
    mentionsBot: true,
    receivedAt: new Date(NOW),
  };
  return { message, sessionKey: "web:c1", log: silentLog, traceId: "t", speech: ENGLISH };
}
