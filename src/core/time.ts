/** Time as people read it, in their own zone; shared by the prompt and the scheduler. */

/**
 * "Saturday 2026-11-21 21:54 (Asia/Shanghai, GMT+08:00)". Throws a RangeError for an unknown time zone: zones are
 * checked where they come in (the configuration, /timezone), not here.
 */
export function describeLocalTime(now: Date, timeZone: string): string {
  // The text changes once a minute; every turn's prompt asks for it.
  const minute = Math.floor(now.getTime() / 60_000);
  if (minute !== describedMinute) {
    described.clear();
    describedMinute = minute;
  }
  let text = described.get(timeZone);
  if (text === undefined) {
    text = describe(now, timeZone);
    described.set(timeZone, text);
  }
  return text;
}

let describedMinute = Number.NaN;
/** This minute's text per zone. */
const described = new Map<string, string>();

function describe(now: Date, timeZone: string): string {
  const parts = formatterFor(timeZone).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? "";
  // Some ICU versions write a zero offset as a bare "GMT".
  const offset = part("timeZoneName") === "GMT" ? "GMT+00:00" : part("timeZoneName");
  return (
    `${part("weekday")} ${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")} ` +
    `(${timeZone}, ${offset})`
  );
}

/** Building an Intl.DateTimeFormat costs far more than using one (every turn's prompt shows the time): one per zone. */
const formatters = new Map<string, Intl.DateTimeFormat>();
/** Zones in use are few; the cap only guards against a flood of distinct names. */
const MAX_FORMATTERS = 500;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "long",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "longOffset",
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
