import { describe, expect, it } from "vitest";
import { CronError, cronSlotAfter, cronSlotAtOrBefore, cronSlotsAfter, parseCron } from "../../src/scheduler/cron.js";

const runs = (expression: string, zone: string, from: string, count: number): string[] =>
  cronSlotsAfter(parseCron(expression, zone), Date.parse(from), count).map((ms) => new Date(ms).toISOString());

describe("cron slots", () => {
  it("a daily 09:00 in Europe/Berlin stays at 09:00 local across both DST changes", () => {
    expect(runs("0 9 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z", 3)).toEqual([
      "2026-03-28T08:00:00.000Z", // CET, UTC+1
      "2026-03-29T07:00:00.000Z", // CEST from this night on, UTC+2
      "2026-03-30T07:00:00.000Z",
    ]);
    expect(runs("0 9 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2)).toEqual(["2026-10-25T08:00:00.000Z", "2026-10-26T08:00:00.000Z"]);
  });

  it("every weekday at 9 in Asia/Shanghai is 01:00 UTC, Monday to Friday", () => {
    // Friday 2026-03-27 02:00 UTC is already past 09:00 in Shanghai: next is Monday.
    expect(runs("0 9 * * 1-5", "Asia/Shanghai", "2026-03-27T02:00:00Z", 3)).toEqual([
      "2026-03-30T01:00:00.000Z",
      "2026-03-31T01:00:00.000Z",
      "2026-04-01T01:00:00.000Z",
    ]);
  });

  it("a fixed time the clocks jump over runs when they jump; one that happens twice runs once", () => {
    // 02:30 does not exist in Berlin on 2026-03-29: the run comes at 03:00 CEST instead of being lost.
    expect(runs("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2)).toEqual(["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
    // 02:30 happens twice on 2026-10-25: only the first.
    expect(runs("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
    // A list of fixed times is fixed times too.
    expect(runs("30 2,14 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 3)).toEqual([
      "2026-10-24T12:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-25T13:30:00.000Z",
    ]);
  });

  it("a job with a step keeps its rhythm in real time through the repeated hour, and skips the missing one", () => {
    expect(runs("*/30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 5)).toEqual([
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T00:30:00.000Z",
      "2026-10-25T01:00:00.000Z", // 02:00 CET
      "2026-10-25T01:30:00.000Z",
      "2026-10-26T01:00:00.000Z",
    ]);
    expect(runs("*/30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 3)).toEqual([
      "2026-03-30T00:00:00.000Z", // nothing on 2026-03-29: 02:00-02:59 does not exist
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:00:00.000Z",
    ]);
  });

  it("knows the last day of the month (L), the nth weekday (#), names and nicknames", () => {
    expect(runs("0 9 L * *", "UTC", "2026-02-10T00:00:00Z", 3)).toEqual(["2026-02-28T09:00:00.000Z", "2026-03-31T09:00:00.000Z", "2026-04-30T09:00:00.000Z"]);
    expect(runs("0 10 * * FRI#2", "UTC", "2026-03-01T00:00:00Z", 2)).toEqual(["2026-03-13T10:00:00.000Z", "2026-04-10T10:00:00.000Z"]);
    expect(runs("0 9 * JAN MON", "UTC", "2026-12-31T00:00:00Z", 2)).toEqual(["2027-01-04T09:00:00.000Z", "2027-01-11T09:00:00.000Z"]);
    expect(runs("@daily", "Asia/Kolkata", "2026-06-30T20:00:00Z", 2)).toEqual(["2026-07-01T18:30:00.000Z", "2026-07-02T18:30:00.000Z"]);
  });

  it("a day of the month and a day of the week both given must both match", () => {
    // Friday the 13th, not every Friday and every 13th.
    expect(runs("0 9 13 * 5", "UTC", "2026-01-01T00:00:00Z", 3)).toEqual([
      "2026-02-13T09:00:00.000Z",
      "2026-03-13T09:00:00.000Z",
      "2026-11-13T09:00:00.000Z",
    ]);
  });

  it("the next slot is strictly after the instant; the latest is at or before it; none when there is none", () => {
    const every5 = parseCron("*/5 * * * *", "UTC");
    const slot = Date.parse("2026-01-01T00:10:00Z");
    expect(cronSlotAfter(every5, slot)).toBe(slot + 300_000);
    expect(cronSlotAfter(every5, slot - 1)).toBe(slot);
    expect(cronSlotAtOrBefore(every5, slot)).toBe(slot);
    expect(cronSlotAtOrBefore(every5, slot + 299_999)).toBe(slot);
    expect(cronSlotAtOrBefore(every5, slot - 1)).toBe(slot - 300_000);
    expect(cronSlotAfter(parseCron("0 9 31 2 *", "UTC"), slot)).toBeNull();
    expect(cronSlotAfter(parseCron("0 0 9 * * * 2025", "UTC"), slot)).toBeNull();
  });

  it.each([
    ["0 25 * * *", /^"0 25 \* \* \*" is not a valid cron expression: Invalid value for hour: 25\. Use 5 fields .*"0 9 \* \* 1-5"/],
    ["0 9 * *", /not a valid cron expression: .*exactly five, six, or seven space separated parts are required/],
    ["every day", /not a valid cron expression/],
    ["09:00", /not a valid cron expression: a time of day goes in the minute and hour fields/],
    ["2026-03-28T09:00", /a time of day goes in the minute and hour fields/],
    ["5/15 * * * *", /stepping with numeric prefix \('5\/15'\) is not allowed. Use wildcard/],
    ["@reboot", /@reboot is not supported/],
  ])("refuses %j with what to fix", (expression, message) => {
    expect(() => parseCron(expression, "UTC")).toThrow(CronError);
    expect(() => parseCron(expression, "UTC")).toThrow(message);
  });
});
