import { createTask } from "node-cron";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CronError, CronSchedule } from "../../src/scheduler/cron.js";

const iso = (ms: number[]) => ms.map((m) => new Date(m).toISOString());

/** node-cron's own next runs, computed with the system clock frozen at `at`. */
function nodeCronRuns(expression: string, timezone: string, at: number, count: number): string[] {
  vi.useFakeTimers({ now: at, toFake: ["Date"] });
  const task = createTask(expression, () => undefined, { timezone });
  try {
    return task.getNextRuns(count).map((d) => d.toISOString());
  } finally {
    void task.destroy();
    vi.useRealTimers();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("CronSchedule", () => {
  it("a daily 09:00 in Europe/Berlin stays at 09:00 local across both DST changes", () => {
    const berlin = CronSchedule.parse("0 9 * * *", "Europe/Berlin");
    expect(iso(berlin.next(Date.parse("2026-03-27T12:00:00Z"), 3))).toEqual([
      "2026-03-28T08:00:00.000Z", // CET, UTC+1
      "2026-03-29T07:00:00.000Z", // CEST from this night on, UTC+2
      "2026-03-30T07:00:00.000Z",
    ]);
    expect(iso(berlin.next(Date.parse("2026-10-24T12:00:00Z"), 2))).toEqual(["2026-10-25T08:00:00.000Z", "2026-10-26T08:00:00.000Z"]);
  });

  it("every weekday at 9 in Asia/Shanghai is 01:00 UTC, Monday to Friday", () => {
    const shanghai = CronSchedule.parse("0 9 * * 1-5", "Asia/Shanghai");
    // Friday 2026-03-27 02:00 UTC is already past 09:00 in Shanghai: next is Monday.
    expect(iso(shanghai.next(Date.parse("2026-03-27T02:00:00Z"), 3))).toEqual([
      "2026-03-30T01:00:00.000Z",
      "2026-03-31T01:00:00.000Z",
      "2026-04-01T01:00:00.000Z",
    ]);
  });

  it("skips a wall time the clocks jump over, and runs a doubled one once", () => {
    const spring = CronSchedule.parse("30 2 * * *", "Europe/Berlin");
    expect(iso(spring.next(Date.parse("2026-03-28T12:00:00Z"), 2))).toEqual(["2026-03-30T00:30:00.000Z", "2026-03-31T00:30:00.000Z"]);
    const autumn = CronSchedule.parse("30 2 * * *", "Europe/Berlin");
    expect(iso(autumn.next(Date.parse("2026-10-24T12:00:00Z"), 2))).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  it.each([
    ["0 9 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z"],
    ["0 9 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z"],
    ["30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z"],
    ["0 9 * * 1-5", "Asia/Shanghai", "2026-03-27T02:00:00Z"],
    ["*/15 8-10 * * 1,3", "America/New_York", "2026-03-07T12:00:00Z"],
    ["0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z"],
    ["0 12 1 */3 *", "Australia/Sydney", "2026-04-04T00:00:00Z"],
    ["15 10 * * 0", "America/Sao_Paulo", "2026-05-01T00:00:00Z"],
    ["@daily", "Asia/Kolkata", "2026-06-30T20:00:00Z"],
  ])("agrees with node-cron on %s in %s from %s", (expression, zone, from) => {
    const at = Date.parse(from);
    expect(iso(CronSchedule.parse(expression, zone).next(at, 6))).toEqual(nodeCronRuns(expression, zone, at, 6));
  });

  it("refuses invalid expressions with the field and an example", () => {
    expect(() => CronSchedule.parse("0 25 * * *", "UTC")).toThrow(CronError);
    expect(() => CronSchedule.parse("0 25 * * *", "UTC")).toThrow(/25 is a invalid expression for hour.*"0 9 \* \* 1-5"/);
    expect(() => CronSchedule.parse("every day", "UTC")).toThrow(/not a valid cron expression/);
  });
});
