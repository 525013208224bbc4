/**
 * Durations as people and models write them: compact ("10m", "1h30m", "2 hours 5 min") or ISO 8601 ("PT1H30M",
 * "P1DT2H", "P2W"). Months and years are refused: their length depends on the date, which `at` or `cron` express.
 */

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Spellings of each unit, longest first so "min" wins over "m". */
const UNIT_WORDS: Array<[RegExp, string]> = [
  [/^(?:seconds?|secs?|s)$/i, "s"],
  [/^(?:minutes?|mins?|m)$/i, "m"],
  [/^(?:hours?|hrs?|h)$/i, "h"],
  [/^(?:days?|d)$/i, "d"],
  [/^(?:weeks?|wks?|w)$/i, "w"],
];

const COMPACT_PART = /(\d+(?:\.\d+)?)\s*([a-z]+)/gi;
const ISO_DURATION = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

export class DurationError extends Error {
  override name = "DurationError";
}

/** Milliseconds of `text`; throws a DurationError that says what is accepted. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  const ms = /^P/i.test(trimmed) ? parseIso(trimmed) : parseCompact(trimmed);
  if (ms === null || ms <= 0) {
    throw new DurationError(
      `"${text}" is not a duration. Write it like "10m", "1h30m", "45 seconds" or in ISO 8601 like "PT1H30M"` +
        " (units: s, m, h, d, w; for months or years use `at` or `cron`).",
    );
  }
  return Math.round(ms);
}

function parseCompact(text: string): number | null {
  let total = 0;
  let consumed = "";
  for (const match of text.matchAll(COMPACT_PART)) {
    const unit = UNIT_WORDS.find(([pattern]) => pattern.test(match[2]!))?.[1];
    if (!unit) return null;
    total += Number(match[1]) * UNIT_MS[unit]!;
    consumed += match[0];
  }
  // Everything but spaces and "and" must have been read: "10m please" is not a duration.
  const rest = text.replace(COMPACT_PART, "").replace(/\band\b|,/gi, "").trim();
  return consumed === "" || rest !== "" ? null : total;
}

function parseIso(text: string): number | null {
  const match = ISO_DURATION.exec(text);
  if (!match || text.toUpperCase() === "P" || text.toUpperCase().endsWith("T")) return null;
  const [, weeks, days, hours, minutes, seconds] = match;
  const parts: Array<[string | undefined, string]> = [
    [weeks, "w"],
    [days, "d"],
    [hours, "h"],
    [minutes, "m"],
    [seconds, "s"],
  ];
  return parts.reduce((sum, [value, unit]) => sum + (value ? Number(value) * UNIT_MS[unit]! : 0), 0);
}

/** The units a duration is told in, largest first. */
export type DurationUnit = "d" | "h" | "min" | "s";

const TOLD_UNITS: ReadonlyArray<[number, DurationUnit]> = [
  [UNIT_MS.d!, "d"],
  [UNIT_MS.h!, "h"],
  [UNIT_MS.m!, "min"],
  [UNIT_MS.s!, "s"],
];

/** The two largest units of `ms` with their counts (90 min: 1 h, 30 min); 0 s for nothing. */
export function durationParts(ms: number): Array<[number, DurationUnit]> {
  let rest = Math.max(0, Math.round(ms / 1000) * 1000);
  const pieces: Array<[number, DurationUnit]> = [];
  for (const [size, unit] of TOLD_UNITS) {
    const count = Math.floor(rest / size);
    if (count > 0) pieces.push([count, unit]);
    rest -= count * size;
    if (pieces.length === 2) break;
  }
  return pieces.length > 0 ? pieces : [[0, "s"]];
}

/** "1 h 30 min", "2 d 4 h", "45 s": the two largest units, for the model and the CLI. */
export function formatDuration(ms: number): string {
  return durationParts(ms)
    .map(([count, unit]) => `${count} ${unit}`)
    .join(" ");
}
