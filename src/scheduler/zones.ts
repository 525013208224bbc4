/**
 * IANA time zones without a library: wall-clock parts of an instant, and the instant of a wall-clock time, both
 * through Intl. Wall times that do not exist (the hour skipped when clocks go forward) are reported, never moved.
 */

export interface WallTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const DAY_MS = 86_400_000;
/** Area/City names (and UTC): offsets like "+08:00" are refused, because they know nothing of summer time. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's canonical spelling ("asia/shanghai" -> "Asia/Shanghai"), or null when it is not an IANA zone. */
export function canonicalZone(zone: string): string | null {
  if (!ZONE_NAME.test(zone.trim())) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export function wallParts(instant: number, zone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The wall time read as if it were UTC, in ms: the same number for the same wall time in every zone. */
export function wallMs(t: WallTime): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
}

/** How far the zone's wall clock is ahead of UTC at `instant`, in ms. */
function offsetAt(instant: number, zone: string): number {
  return wallMs(wallParts(instant, zone)) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant the zone's clocks show `t`; the earlier one when clocks go back and `t` happens twice, and null
 * when clocks go forward over it and it never happens.
 */
export function wallTimeToInstant(t: WallTime, zone: string): number | null {
  const local = wallMs(t);
  // Around any wall time the zone has at most two offsets (before and after a change a day away at most):
  // each gives a candidate; those that read back as `t` are real.
  const candidates = [local - offsetAt(local - DAY_MS, zone), local - offsetAt(local + DAY_MS, zone)]
    .filter((instant) => wallMs(wallParts(instant, zone)) === local)
    .sort((a, b) => a - b);
  return candidates[0] ?? null;
}
