/** Schedules and durations in a person's words: the shapes /remind makes, and any other cron through cronstrue. */
import { describe, expect, it } from "vitest";
import { Translator } from "../../src/infra/i18n/index.js";
import { spokenDuration, spokenRefusal, spokenSchedule } from "../../src/scheduler/spoken.js";
import type { Trigger } from "../../src/scheduler/types.js";

const translator = new Translator("en");
const en = translator.speech("en");
const zh = translator.speech("zh");
const cron = (expression: string): Trigger => ({ type: "cron", expression, timezone: "Asia/Shanghai" });

describe("spoken schedules", () => {
  it.each([
    ["0 9 * * *", "every day at 9:00", "每天 9:00"],
    ["30 7 * * 1-5", "every weekday at 7:30", "每个工作日 7:30"],
    ["0 10 * * 0,6", "every Saturday and Sunday at 10:00", "每周六和周日 10:00"],
    ["5 18 * * 1", "every Monday at 18:05", "每周一 18:05"],
    ["0 9 * * 1,3,5", "every Monday, Wednesday, and Friday at 9:00", "每周一、周三和周五 9:00"],
  ])("%s: %s / %s", (expression, english, chinese) => {
    expect(spokenSchedule(cron(expression), en)).toBe(english);
    expect(spokenSchedule(cron(expression), zh)).toBe(chinese);
  });

  it("tells other cron shapes through cronstrue, with the zone", () => {
    expect(spokenSchedule(cron("0 9 1 * *"), en)).toBe("At 09:00, on day 1 of the month (Asia/Shanghai)");
    expect(spokenSchedule(cron("0 9 1 * *"), zh)).toMatch(/^在09:00, 限每月 1 号（Asia\/Shanghai）$/);
  });

  it("shows a cron shape croner takes and cronstrue cannot word as the expression itself", () => {
    expect(spokenSchedule(cron("0 9 * * FRI#L"), en)).toBe('cron "0 9 * * FRI#L" (Asia/Shanghai)');
  });

  it("intervals, single runs and durations", () => {
    expect(spokenSchedule({ type: "interval", everyMs: 90 * 60_000, startAt: 0 }, en)).toBe("every 1 h 30 min");
    expect(spokenSchedule({ type: "interval", everyMs: 90 * 60_000, startAt: 0 }, zh)).toBe("每 1 小时 30 分钟");
    expect(spokenSchedule({ type: "once", at: 0 }, zh)).toBe("一次");
    expect(spokenDuration(0, zh.t)).toBe("0 秒");
    expect(spokenDuration(2 * 86_400_000 + 3_600_000 + 5_000, en.t)).toBe("2 d 1 h");
  });

  it("words a refusal with its times and durations in the reader's language", () => {
    const at = Date.UTC(2026, 2, 28, 1, 0);
    const past = { key: "past", times: { when: { at, zone: "Asia/Shanghai" }, now: { at: at + 60_000, zone: "Asia/Shanghai" } } };
    expect(spokenRefusal(past, zh)).toBe("2026年3月28日星期六 09:00 (Asia/Shanghai) 已经过去了（现在是 2026年3月28日星期六 09:01 (Asia/Shanghai)）。请给一个将来的时间。");
    expect(spokenRefusal({ key: "tooOften", durations: { interval: 10_000, min: 60_000 } }, en)).toBe("Runs would be 10 s apart; the shortest interval allowed is 1 min.");
    expect(spokenRefusal({ key: "ended", values: { id: "abc" }, words: { status: "schedules.status.done" } }, zh)).toBe("任务 abc 已经结束（已完成）；请重新设置一个。");
  });
});
