/**
 * `when` as the tools take it, and its resolution into a stored trigger. The gateway does every computation
 * from its own clock and the user's time zone; the model only copies what the user said.
 */
import type { Cron } from "croner";
import { describeLocalTime } from "../core/time.js";
import { CronError, cronSlotsAfter, parseCron } from "./cron.js";
import { DurationError, formatDuration, parseDuration } from "./durations.js";
import { localDateTimeOf } from "./natural.js";
import { DATETIME_HINT, type When } from "./when-schema.js";
import type { SpokenRefusal } from "./spoken.js";
import { slotAfter } from "./triggers.js";
import type { Trigger } from "./types.js";
import { canonicalZone, wallMs, wallTimeToInstant } from "./zones.js";


export interface WhenContext {
  now: number;
  /** The user's zone (or the chat's, or the default), for local times and cron. */
  zone: string;
  minIntervalMs: number;
}

/** Bad `when` input, with what to fix: the message for the model, `spoken` (where set) for a person. */
export class WhenError extends Error {
  override name = "WhenError";
  constructor(
    message: string,
    readonly spoken?: SpokenRefusal,
  ) {
    super(message);
  }
}

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** A trigger whose first slot is after ctx.now. Throws a WhenError saying what to fix. */
export function resolveWhen(when: When, ctx: WhenContext): Trigger {
  if ("in" in when) return { type: "once", at: ctx.now + duration(when.in, "in") };
  if ("at" in when) return { type: "once", at: futureTime(when.at, "at", ctx) };
  if ("every" in when) {
    const everyMs = duration(when.every, "every");
    requireInterval(everyMs, ctx);
    const startAt = when.start_at !== undefined ? parseDateTime(when.start_at, ctx, "start_at") : ctx.now + everyMs;
    return { type: "interval", everyMs, startAt };
  }
  const timezone = when.timezone !== undefined ? zoneOrThrow(when.timezone) : ctx.zone;
  const trigger: Trigger = { type: "cron", expression: when.cron, timezone };
  const [first, second] = cronSlotsAfter(cron(when.cron, timezone), ctx.now, 2);
  if (first === undefined) throw new WhenError(`The cron expression "${when.cron}" never runs again.`);
  if (second !== undefined) requireInterval(second - first, ctx);
  return trigger;
}

/** Resolves `until`: an ISO date-time after the trigger's first run. */
export function resolveUntil(until: string, trigger: Trigger, ctx: WhenContext): number {
  const at = parseDateTime(until, ctx, "until");
  const first = slotAfter(trigger, ctx.now);
  if (first !== null && at < first) {
    throw new WhenError(`until (${describeLocalTime(new Date(at), ctx.zone)}) is before the first run; move it later.`);
  }
  return at;
}

/**
 * An ISO date-time (with Z or an offset it is exact; without, a wall time in the zone), or one said in words
 * ("tomorrow 9am"), which is read from the gateway's clock in the zone.
 */
export function parseDateTime(value: string, ctx: Pick<WhenContext, "now" | "zone">, field: string): number {
  const { zone } = ctx;
  const m = ISO_DATETIME.exec(value.trim()) ?? ISO_DATETIME.exec(localDateTimeOf(value, ctx.now, zone) ?? "");
  if (!m) throw new WhenError(`${field} "${value}" is not ${DATETIME_HINT}.`);
  const [, year, month, day, hour, minute, second, offset] = m;
  const wall = { year: +year!, month: +month!, day: +day!, hour: +hour!, minute: +minute!, second: +(second ?? 0) };
  const asUtc = new Date(wallMs(wall));
  const exists =
    asUtc.getUTCMonth() + 1 === wall.month && asUtc.getUTCDate() === wall.day && wall.hour < 24 && wall.minute < 60 && wall.second < 60;
  if (!exists) throw new WhenError(`${field} "${value}" is not a real date and time.`);
  if (offset !== undefined) return wallMs(wall) - offsetMs(offset);
  const instant = wallTimeToInstant(wall, zone);
  if (instant === null) {
    throw new WhenError(`${field} "${value}" does not exist in ${zone}: the clocks skip that hour. Pick another time.`);
  }
  return instant;
}

/** The zone's canonical name; throws a WhenError naming an example. */
export function zoneOrThrow(zone: string): string {
  const canonical = canonicalZone(zone);
  if (!canonical) {
    throw new WhenError(`"${zone}" is not an IANA time zone; write it like Europe/Berlin or Asia/Shanghai.`, { key: "zone", values: { zone } });
  }
  return canonical;
}

function futureTime(value: string, field: string, ctx: WhenContext): number {
  const at = parseDateTime(value, ctx, field);
  if (at <= ctx.now) {
    throw new WhenError(
      `${field} ${describeLocalTime(new Date(at), ctx.zone)} is in the past (it is now ` +
        `${describeLocalTime(new Date(ctx.now), ctx.zone)}). Give a future time, or use {"in": ...} for a delay.`,
      { key: "past", times: { when: { at, zone: ctx.zone }, now: { at: ctx.now, zone: ctx.zone } } },
    );
  }
  return at;
}

function duration(value: string, field: string): number {
  try {
    return parseDuration(value);
  } catch (err) {
    if (err instanceof DurationError) throw new WhenError(`${field}: ${err.message}`);
    throw err;
  }
}

function cron(expression: string, timezone: string): Cron {
  try {
    return parseCron(expression, timezone);
  } catch (err) {
    if (err instanceof CronError) throw new WhenError(err.message);
    throw err;
  }
}

function requireInterval(ms: number, ctx: WhenContext): void {
  if (ms < ctx.minIntervalMs) {
    throw new WhenError(`Runs would be ${formatDuration(ms)} apart; the shortest interval allowed is ${formatDuration(ctx.minIntervalMs)}.`, {
      key: "tooOften",
      durations: { interval: ms, min: ctx.minIntervalMs },
    });
  }
}

/** "+08:00", "+0800", "-05" or "Z" in ms east of UTC. */
function offsetMs(offset: string): number {
  if (offset.toUpperCase() === "Z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(offset)!;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === "-" ? -1 : 1) * minutes * 60_000;
}
