/**
 * Cron expressions, all through croner: checking them, their slots in a time zone from any instant (the
 * scheduler's clock may not be the real one), and the jobs that fire them (cron-jobs.ts). One library with one
 * set of rules, so the next run shown, the one stored and the one fired are the same.
 *
 * Rules: 5 fields (a 6th in front for seconds, a 7th for years), names (MON, JAN), @daily and the like, L, W
 * and #. A day-of-month and a day-of-week both given must both match. Summer time follows croner, like Vixie
 * cron: a job at fixed times (no `*` or step in its second, minute and hour) whose time the clocks skip runs
 * when they jump, and runs once when its time happens twice; other jobs keep their rhythm in real time.
 */
import { Cron, type CronCallback, type CronOptions } from "croner";

const EXAMPLE = 'Use 5 fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5" for 09:00 on weekdays.';

const RULES: CronOptions = { domAndDow: true, fixedTimeRule: "no-wildcard" };

/** A bad expression, with what to fix; shown to the model or the user as is. */
export class CronError extends Error {
  override name = "CronError";
}

/** The expression's schedule in `timezone`, for computing slots; throws a CronError saying what is wrong. */
export function parseCron(expression: string, timezone: string): Cron {
  return build(expression, { ...RULES, timezone });
}

/**
 * A started job that calls `fire` at each slot. Not twice at once: a slot that comes while the previous run's
 * promise is pending is skipped. Its timer does not keep the process alive.
 */
export function startCron(expression: string, timezone: string, fire: CronCallback): Cron {
  return build(expression, { ...RULES, timezone, protect: true, unref: true }, fire);
}

/** The first slot strictly after `after`, or null when there is none. */
export function cronSlotAfter(cron: Cron, after: number): number | null {
  return cron.nextRun(new Date(after))?.getTime() ?? null;
}

/** Up to `count` slots strictly after `after`, in order. */
export function cronSlotsAfter(cron: Cron, after: number, count: number): number[] {
  return cron.nextRuns(count, new Date(after)).map((slot) => slot.getTime());
}

/** The latest slot at or before `at`, or null when there is none. */
export function cronSlotAtOrBefore(cron: Cron, at: number): number | null {
  // croner's previous runs lie strictly before the reference.
  return cron.previousRuns(1, new Date(at + 1))[0]?.getTime() ?? null;
}

function build(expression: string, options: CronOptions, fire?: CronCallback): Cron {
  // croner reads a string with a colon as a date to run once at.
  if (expression.includes(":")) {
    throw new CronError(`"${expression}" is not a valid cron expression: a time of day goes in the minute and hour fields. ${EXAMPLE}`);
  }
  try {
    return fire ? new Cron(expression, options, fire) : new Cron(expression, options);
  } catch (err) {
    const problem = (err instanceof Error ? err.message : String(err)).replace(/^CronPattern: /, "").replace(/\.$/, "");
    throw new CronError(`"${expression}" is not a valid cron expression: ${problem}. ${EXAMPLE}`, { cause: err });
  }
}
