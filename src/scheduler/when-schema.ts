/** The `when` of a task as tools and commands give it: in, at, every or cron; resolved by when.ts. */
import { z } from "zod";

const text = (max: number) => z.string().trim().min(1).max(max);

const DURATION_HINT = 'a duration: "10m", "1h30m", "2 hours", "45 seconds" or ISO 8601 "PT1H30M"';
export const DATETIME_HINT =
  'a date and time: ISO 8601 "2026-03-28T09:00" or words like "tomorrow 9am", "明天早上9点" are read in the user\'s ' +
  'time zone; "2026-03-28T09:00+01:00" or "...Z" is exact';

export const whenSchema = z.union([
  z.strictObject({ in: text(60).describe(`Run once after ${DURATION_HINT}`) }),
  z.strictObject({ at: text(60).describe(`Run once at ${DATETIME_HINT}`) }),
  z.strictObject({
    every: text(60).describe(`Run repeatedly, each ${DURATION_HINT}`),
    start_at: text(60).optional().describe(`First run, as ${DATETIME_HINT}; default: one interval from now`),
  }),
  z.strictObject({
    cron: text(100).describe('A cron expression with 5 fields, e.g. "0 9 * * 1-5" = 09:00 on weekdays'),
    timezone: text(60).optional().describe("IANA zone the expression runs in, e.g. Europe/Berlin; default: the user's"),
  }),
]);

export type When = z.output<typeof whenSchema>;
