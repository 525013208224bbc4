import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "../../src/scheduler/durations.js";
import { parseDateTime, resolveUntil, resolveWhen, WhenError, type WhenContext } from "../../src/scheduler/when.js";
import { canonicalZone, wallTimeToInstant } from "../../src/scheduler/zones.js";

/** Saturday 2026-03-28 10:00 UTC: Berlin changes to summer time the next night. */
const NOW = Date.parse("2026-03-28T10:00:00Z");
const ctx = (zone: string, now = NOW): WhenContext => ({ now, zone, minIntervalMs: 60_000 });

describe("durations", () => {
  it.each([
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["2 hours 5 min", 7_500_000],
    ["45 seconds", 45_000],
    ["1.5h", 5_400_000],
    ["1 day and 2 hours", 93_600_000],
    ["PT1H30M", 5_400_000],
    ["P1DT2H", 93_600_000],
    ["P2W", 1_209_600_000],
    ["pt2s", 2_000],
  ])("reads %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "soon", "10 parsecs", "10m please", "P1M", "P", "PT", "0m", "-5m"])("refuses %j and says what is accepted", (text) => {
    expect(() => parseDuration(text)).toThrow(/Write it like "10m"/);
  });

  it("formats the two largest units", () => {
    expect(formatDuration(5_400_000)).toBe("1 h 30 min");
    expect(formatDuration(93_600_000 + 61_000)).toBe("1 d 2 h");
    expect(formatDuration(2_000)).toBe("2 s");
  });
});

describe("resolveWhen", () => {
  it("in: adds the delay to the gateway's clock", () => {
    expect(resolveWhen({ in: "2s" }, ctx("UTC"))).toEqual({ type: "once", at: NOW + 2_000 });
    expect(resolveWhen({ in: "PT1H30M" }, ctx("Asia/Shanghai"))).toEqual({ type: "once", at: NOW + 5_400_000 });
  });

  it("at without an offset is the user's local time, with one it is exact", () => {
    expect(resolveWhen({ at: "2026-03-28T21:00" }, ctx("Asia/Shanghai"))).toEqual({ type: "once", at: Date.parse("2026-03-28T13:00:00Z") });
    expect(resolveWhen({ at: "2026-03-28T21:00" }, ctx("Europe/Berlin"))).toEqual({ type: "once", at: Date.parse("2026-03-28T20:00:00Z") });
    // After the change Berlin is UTC+2: the same wall time is an hour earlier in UTC.
    expect(resolveWhen({ at: "2026-03-29T21:00" }, ctx("Europe/Berlin"))).toEqual({ type: "once", at: Date.parse("2026-03-29T19:00:00Z") });
    expect(resolveWhen({ at: "2026-03-28T21:00+08:00" }, ctx("Europe/Berlin"))).toEqual({ type: "once", at: Date.parse("2026-03-28T13:00:00Z") });
    expect(resolveWhen({ at: "2026-03-28T21:00:30Z" }, ctx("Europe/Berlin"))).toEqual({ type: "once", at: Date.parse("2026-03-28T21:00:30Z") });
  });

  it("at in words is read from the gateway's clock in the user's zone", () => {
    // 10:00 UTC is 18:00 in Shanghai: "tomorrow" there is Sunday the 29th.
    expect(resolveWhen({ at: "tomorrow 9am" }, ctx("Asia/Shanghai"))).toEqual({ type: "once", at: Date.parse("2026-03-29T01:00:00Z") });
    expect(resolveWhen({ at: "明天早上9点" }, ctx("Asia/Shanghai"))).toEqual({ type: "once", at: Date.parse("2026-03-29T01:00:00Z") });
    expect(resolveWhen({ at: "at 21:30" }, ctx("Europe/Berlin"))).toEqual({ type: "once", at: Date.parse("2026-03-28T20:30:00Z") });
    expect(resolveWhen({ every: "1d", start_at: "monday 8am" }, ctx("UTC"))).toMatchObject({ startAt: Date.parse("2026-03-30T08:00:00Z") });
  });

  it("refuses a time in the past, showing now in the user's zone", () => {
    expect(() => resolveWhen({ at: "2026-03-28T09:00" }, ctx("UTC"))).toThrow(/is in the past \(it is now Saturday 2026-03-28 10:00 \(UTC/);
    expect(() => resolveWhen({ at: "2026-03-28T10:00:00Z" }, ctx("UTC"))).toThrow(WhenError);
  });

  it("refuses a local time the clocks skip, and malformed or impossible dates", () => {
    expect(() => resolveWhen({ at: "2026-03-29T02:30" }, ctx("Europe/Berlin"))).toThrow(/does not exist in Europe\/Berlin/);
    expect(() => resolveWhen({ at: "whenever you like" }, ctx("UTC"))).toThrow(/is not a date and time: ISO 8601/);
    expect(() => resolveWhen({ at: "tomorrow 9am or so" }, ctx("UTC"))).toThrow(/is not a date and time/);
    expect(() => resolveWhen({ at: "2026-02-30T09:00" }, ctx("UTC"))).toThrow(/not a real date/);
    expect(() => resolveWhen({ at: "2026-04-01T24:00" }, ctx("UTC"))).toThrow(/not a real date/);
  });

  it("an ambiguous local time (clocks going back) is its first occurrence", () => {
    const at = parseDateTime("2026-10-25T02:30", { now: NOW, zone: "Europe/Berlin" }, "at");
    expect(new Date(at).toISOString()).toBe("2026-10-25T00:30:00.000Z");
  });

  it("every: an interval from now, or from start_at; shorter than the minimum is refused", () => {
    expect(resolveWhen({ every: "2h" }, ctx("UTC"))).toEqual({ type: "interval", everyMs: 7_200_000, startAt: NOW + 7_200_000 });
    expect(resolveWhen({ every: "1d", start_at: "2026-03-29T09:00" }, ctx("Asia/Shanghai"))).toEqual({
      type: "interval",
      everyMs: 86_400_000,
      startAt: Date.parse("2026-03-29T01:00:00Z"),
    });
    expect(() => resolveWhen({ every: "30s" }, ctx("UTC"))).toThrow(/30 s apart; the shortest interval allowed is 1 min/);
  });

  it("cron: in the user's zone unless one is given; bad expressions and zones say what to fix", () => {
    expect(resolveWhen({ cron: "0 9 * * 1-5" }, ctx("Asia/Shanghai"))).toEqual({ type: "cron", expression: "0 9 * * 1-5", timezone: "Asia/Shanghai" });
    expect(resolveWhen({ cron: "0 9 * * *", timezone: "europe/berlin" }, ctx("UTC"))).toMatchObject({ timezone: "Europe/Berlin" });
    expect(() => resolveWhen({ cron: "61 9 * * *" }, ctx("UTC"))).toThrow(/not a valid cron expression: .*minute: 61.*e\.g\. "0 9 \* \* 1-5"/);
    expect(() => resolveWhen({ cron: "0 9 * *" }, ctx("UTC"))).toThrow(/exactly five, six, or seven space separated parts/);
    expect(() => resolveWhen({ cron: "9:00" }, ctx("UTC"))).toThrow(/a time of day goes in the minute and hour fields/);
    expect(() => resolveWhen({ cron: "0 9 30 2 *" }, ctx("UTC"))).toThrow(/"0 9 30 2 \*" never runs again/);
    expect(resolveWhen({ cron: "0 9 L * *" }, ctx("UTC"))).toEqual({ type: "cron", expression: "0 9 L * *", timezone: "UTC" });
    expect(() => resolveWhen({ cron: "*/10 * * * * *" }, ctx("UTC"))).toThrow(/10 s apart/);
    expect(() => resolveWhen({ cron: "0 9 * * *", timezone: "Mars/Olympus" }, ctx("UTC"))).toThrow(/not an IANA time zone; write it like Europe\/Berlin/);
    expect(() => resolveWhen({ cron: "0 9 * * *", timezone: "+08:00" }, ctx("UTC"))).toThrow(/not an IANA time zone/);
  });

  it("until must come after the first run", () => {
    const trigger = resolveWhen({ every: "1h" }, ctx("UTC"));
    expect(resolveUntil("2026-03-29T00:00", trigger, ctx("UTC"))).toBe(Date.parse("2026-03-29T00:00:00Z"));
    expect(() => resolveUntil("2026-03-28T10:30", trigger, ctx("UTC"))).toThrow(/before the first run/);
  });
});

describe("zones", () => {
  it("canonicalizes IANA names and refuses the rest", () => {
    expect(canonicalZone("asia/shanghai")).toBe("Asia/Shanghai");
    expect(canonicalZone("UTC")).toBe("UTC");
    expect(canonicalZone("Nowhere/Special")).toBeNull();
    expect(canonicalZone("")).toBeNull();
  });

  it("finds the instant of a wall time on both sides of a DST change", () => {
    const wall = { year: 2026, month: 3, day: 28, hour: 9, minute: 0, second: 0 };
    expect(wallTimeToInstant(wall, "Europe/Berlin")).toBe(Date.parse("2026-03-28T08:00:00Z"));
    expect(wallTimeToInstant({ ...wall, day: 29 }, "Europe/Berlin")).toBe(Date.parse("2026-03-29T07:00:00Z"));
    expect(wallTimeToInstant({ ...wall, day: 29, hour: 2, minute: 30 }, "Europe/Berlin")).toBeNull();
  });
});
