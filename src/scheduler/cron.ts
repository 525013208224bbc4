/**
 * Cron expressions, checked by node-cron, and their next slots in a time zone computed from any instant (node-cron
 * only computes them from the real now, and the scheduler's clock may be another). A slot whose wall time does
 * not exist that day (clocks going forward) is skipped, and a wall time that happens twice runs once, as in
 * node-cron; test/scheduler/cron.test.ts holds the two to the same answers.
 */
import { parse, validateDetailed } from "node-cron";
import { addDays, wallMs, wallParts, wallTimeToInstant, weekdayOf } from "./zones.js";

/** How far ahead a slot is looked for: far enough for any leap day. */
const HORIZON_DAYS = 366 * 5;

const EXAMPLE = 'Use 5 fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5" for 09:00 on weekdays.';

export class CronError extends Error {
  override name = "CronError";
}

export class CronSchedule {
  private constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly seconds: number[],
    private readonly minutes: number[],
    private readonly hours: number[],
    private readonly daysOfMonth: Set<number>,
    private readonly months: Set<number>,
    private readonly weekdays: Set<number>,
  ) {}

  /** Throws a CronError saying which field is wrong and how to write it. */
  static parse(expression: string, timezone: string): CronSchedule {
    const checked = validateDetailed(expression);
    if (!checked.valid) {
      const problems = checked.errors.map((e) => e.message).join("; ");
      throw new CronError(`"${expression}" is not a valid cron expression: ${problems}. ${EXAMPLE}`);
    }
    const f = parse(expression);
    const plain = (values: Array<number | string>): number[] | null =>
      values.every((v): v is number => typeof v === "number") ? values : null;
    const daysOfMonth = plain(f.dayOfMonth);
    const weekdays = plain(f.dayOfWeek);
    if (!daysOfMonth || !weekdays) {
      throw new CronError(`"${expression}" uses L, W or #, which are not supported here. ${EXAMPLE}`);
    }
    const ascending = (values: number[]): number[] => [...values].sort((a, b) => a - b);
    return new CronSchedule(
      expression.trim(),
      timezone,
      ascending(f.second),
      ascending(f.minute),
      ascending(f.hour),
      new Set(daysOfMonth),
      new Set(f.month),
      new Set(weekdays),
    );
  }

  /** The first slot strictly after `after`, or null when none comes within five years. */
  nextAfter(after: number): number | null {
    const start = wallParts(after, this.timezone);
    const startWall = wallMs(start);
    for (let i = 0; i <= HORIZON_DAYS; i++) {
      const day = addDays(start, i);
      if (!this.months.has(day.month) || !this.daysOfMonth.has(day.day) || !this.weekdays.has(weekdayOf(day))) continue;
      for (const hour of this.hours) {
        for (const minute of this.minutes) {
          for (const second of this.seconds) {
            const wall = { ...day, hour, minute, second };
            if (i === 0 && wallMs(wall) <= startWall) continue;
            const instant = wallTimeToInstant(wall, this.timezone);
            if (instant !== null && instant > after) return instant;
          }
        }
      }
    }
    return null;
  }

  /** Up to `count` slots after `after`, in order. */
  next(after: number, count: number): number[] {
    const slots: number[] = [];
    for (let from = after; slots.length < count; ) {
      const slot = this.nextAfter(from);
      if (slot === null) break;
      slots.push(slot);
      from = slot;
    }
    return slots;
  }
}
