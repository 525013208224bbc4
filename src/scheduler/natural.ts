/**
 * `/remind` without the model: "in 10m stretch", "tomorrow 9am standup", "every weekday 9:00 standup",
 * "明天早上9点 开会", "每天早上9点 喝水". The words are turned into the same `when` the tools take, so the
 * scheduler resolves them like any other; chrono-node reads the dates and times (English, then Chinese).
 */
import { createRequire } from "node:module";
import type { Chrono } from "chrono-node";
import { DurationError, parseDuration } from "./durations.js";
import type { When } from "./when-schema.js";
import { wallParts } from "./zones.js";

/**
 * The English and Chinese parsers, loaded on first use: chrono-node with all its locales is about 20 MB that a
 * gateway whose users never type /remind with a date does not need.
 */
let parsers: { en: Chrono; zh: Chrono } | undefined;
function chrono(): { en: Chrono; zh: Chrono } {
  if (!parsers) {
    const load = createRequire(import.meta.url);
    parsers = {
      en: (load("chrono-node/en") as { casual: Chrono }).casual,
      zh: (load("chrono-node/zh") as { casual: Chrono }).casual,
    };
  }
  return parsers;
}

export interface ParsedReminder {
  when: When;
  text: string;
}

/** A time of day was not said ("tomorrow standup"): the reminder comes at this hour. */
const DEFAULT_HOUR = 9;

const ENGLISH_DAYS: Record<string, string> = {
  day: "*", daily: "*", weekday: "1-5", weekend: "0,6",
  sunday: "0", monday: "1", tuesday: "2", wednesday: "3", thursday: "4", friday: "5", saturday: "6",
  sun: "0", mon: "1", tue: "2", tues: "2", wed: "3", thu: "4", thur: "4", thurs: "4", fri: "5", sat: "6",
};

const CHINESE_DAYS: Record<string, string> = { 天: "*", 日: "*", 工作日: "1-5", 周末: "0,6" };
const CHINESE_WEEKDAYS = "日一二三四五六";
const CHINESE_NUMBERS: Record<string, number> = { 半: 0.5, 一: 1, 两: 2, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };
const CHINESE_UNITS: Record<string, string> = { 秒: "s", 秒钟: "s", 分: "m", 分钟: "m", 小时: "h", 个小时: "h", 钟头: "h", 个钟头: "h", 天: "d", 周: "w", 星期: "w" };

const CHINESE_AMOUNT = "(\\d+(?:\\.\\d+)?|[半一两二三四五六七八九十])";
const CHINESE_UNIT = "(秒钟|秒|分钟|分|个小时|小时|个钟头|钟头|天|周|星期)";
const CHINESE_DELAY = new RegExp(`^${CHINESE_AMOUNT}\\s*${CHINESE_UNIT}(?:之|以)?后\\s*(.*)$`, "s");
const CHINESE_EVERY = new RegExp(`^每(?:隔)?(?:个)?\\s*${CHINESE_AMOUNT}?\\s*${CHINESE_UNIT}\\s*(.*)$`, "s");
const CHINESE_DAILY = /^(?:每(?:个)?(天|日|工作日|周末)|每(?:周|星期)([日天一二三四五六]))\s*(.*)$/s;

/**
 * Reads `input` (the words after /remind) with `now` as seen in `zone`. Returns null when no time is found;
 * the caller then shows the usage. Times are not checked here: the scheduler refuses past or invalid ones.
 */
export function parseReminder(input: string, now: number, zone: string): ParsedReminder | null {
  const text = input.trim();
  return delay(text) ?? recurring(text, now, zone) ?? dateTime(text, now, zone);
}

/** "in 10m stretch", "in 1 hour 30 minutes call mom", "10分钟后 喝水". */
function delay(text: string): ParsedReminder | null {
  const english = /^in\s+(.+)$/is.exec(text);
  if (english) {
    const split = leadingDuration(english[1]!);
    return split ? withText({ in: split.duration }, split.rest) : null;
  }
  const chinese = CHINESE_DELAY.exec(text);
  if (!chinese) return null;
  return withText({ in: chineseDuration(chinese[1]!, chinese[2]!) }, chinese[3]!);
}

/** "every 2 hours drink water", "every weekday 9:00 standup", "每天早上9点 喝水", "每30分钟 起来走走". */
function recurring(text: string, now: number, zone: string): ParsedReminder | null {
  const english = /^every\s+(.+)$/is.exec(text);
  if (english) {
    const rest = english[1]!;
    const day = /^(\w+?)s?\b\s*(?:at\s+)?(.*)$/is.exec(rest);
    const dow = day ? ENGLISH_DAYS[day[1]!.toLowerCase()] : undefined;
    if (day && dow !== undefined) return daily(dow, day[2]!, chrono().en, now, zone);
    const split = leadingDuration(/^(?:hour|minute|day|week)\b/i.test(rest) ? `1 ${rest}` : rest);
    return split ? withText({ every: split.duration }, split.rest) : null;
  }
  const chineseDaily = CHINESE_DAILY.exec(text);
  if (chineseDaily) {
    const dow = chineseDaily[1] ? CHINESE_DAYS[chineseDaily[1]]! : String(CHINESE_WEEKDAYS.indexOf(chineseDaily[2]!.replace("天", "日")));
    return daily(dow, chineseDaily[3]!, chrono().zh, now, zone);
  }
  const chineseEvery = CHINESE_EVERY.exec(text);
  if (!chineseEvery) return null;
  return withText({ every: chineseDuration(chineseEvery[1] ?? "1", chineseEvery[2]!) }, chineseEvery[3]!);
}

/** A cron rule for `dow` at the time said at the start of `rest` (09:00 when none is). */
function daily(dow: string, rest: string, parser: Chrono, now: number, zone: string): ParsedReminder | null {
  const found = parser.parse(rest, wallClockReference(now, zone), { forwardDate: true }).find((r) => r.index === 0);
  const hour = found?.start.isCertain("hour") ? found.start.get("hour")! : DEFAULT_HOUR;
  const minute = found?.start.isCertain("hour") ? (found.start.get("minute") ?? 0) : 0;
  return withText({ cron: `${minute} ${hour} * * ${dow}` }, found ? rest.slice(found.text.length) : rest);
}

/** "tomorrow 9am standup", "next friday 3pm review", "明天早上9点 开会": a local date-time for `at`. */
function dateTime(text: string, now: number, zone: string): ParsedReminder | null {
  const found = leadingDateTime(text, now, zone);
  return found ? withText({ at: found.at }, found.rest) : null;
}

/**
 * A date and time said in words, as a local ISO date-time ("tomorrow 9am" -> "2026-03-30T09:00"), when the whole
 * of `text` is one; null otherwise. For `at`, `start_at` and `until` given in words instead of ISO.
 */
export function localDateTimeOf(text: string, now: number, zone: string): string | null {
  const found = leadingDateTime(text, now, zone);
  return found && found.rest.trim() === "" ? found.at : null;
}

/** The date and time at the start of `text` (after an optional "on" or "at"), and the words after it. */
function leadingDateTime(text: string, now: number, zone: string): { at: string; rest: string } | null {
  const reference = wallClockReference(now, zone);
  for (const parser of [chrono().en, chrono().zh]) {
    const found = parser
      .parse(text, reference, { forwardDate: true })
      .find((r) => /^\s*(?:(?:on|at)\s*)?$/i.test(text.slice(0, r.index)));
    if (!found) continue;
    const s = found.start;
    const certainTime = s.isCertain("hour");
    const pad = (n: number | null, width = 2): string => String(n ?? 0).padStart(width, "0");
    const hour = certainTime ? s.get("hour") : DEFAULT_HOUR;
    const minute = certainTime ? s.get("minute") : 0;
    const at = `${pad(s.get("year"), 4)}-${pad(s.get("month"))}-${pad(s.get("day"))}T${pad(hour)}:${pad(minute)}`;
    return { at, rest: text.slice(found.index + found.text.length) };
  }
  return null;
}

/**
 * chrono reads dates in the process's own zone, which is not the user's. Handing it the user's wall-clock time
 * as a process-local Date makes its answers wall-clock times of the user, which the scheduler then places in
 * the user's zone.
 */
function wallClockReference(now: number, zone: string): Date {
  const w = wallParts(now, zone);
  return new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/** The longest run of leading words that is a duration, and what follows it. */
function leadingDuration(text: string): { duration: string; rest: string } | null {
  const words = text.trim().split(/\s+/);
  for (let n = words.length - 1; n >= 1; n--) {
    const candidate = words.slice(0, n).join(" ");
    try {
      parseDuration(candidate);
      return { duration: candidate, rest: words.slice(n).join(" ") };
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
    }
  }
  return null;
}

function chineseDuration(amount: string, unit: string): string {
  return `${CHINESE_NUMBERS[amount] ?? Number(amount)}${CHINESE_UNITS[unit]}`;
}

/** The reminder needs words besides the time. */
function withText(when: When, rest: string): ParsedReminder | null {
  const text = rest.trim().replace(/^(?:to|that|about|提醒我|提醒)\s*/i, "").trim();
  return text === "" ? null : { when, text };
}
