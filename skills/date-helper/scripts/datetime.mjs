// Date and time-zone arithmetic for the date-helper skill. Node's Intl only: no dependencies, no network.
const USAGE = `usage:
  now [ZONE ...]                          the current time in each zone (default UTC)
  convert "YYYY-MM-DD HH:MM" FROM TO ...  a wall-clock time in zone FROM, shown in each zone TO
  until "YYYY-MM-DD[ HH:MM]" [ZONE]       how long until then (a time in ZONE, default UTC)
  weekday YYYY-MM-DD                      the day of the week of a date
ZONE is an IANA time zone name such as Europe/Paris, America/New_York or Asia/Shanghai.`;

class UsageError extends Error {}

function checkZone(zone) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone;
  } catch {
    throw new UsageError(`unknown time zone "${zone}" (use an IANA name such as Europe/Paris)`);
  }
}

function partsOf(ms, zone) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", weekday: "long", year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "longOffset",
  }).formatToParts(ms);
  const get = (type) => parts.find((p) => p.type === type)?.value ?? "";
  return {
    year: Number(get("year")), month: Number(get("month")), day: Number(get("day")),
    hour: Number(get("hour")), minute: Number(get("minute")), second: Number(get("second")),
    weekday: get("weekday"), offset: get("timeZoneName"),
  };
}

const pad = (n) => String(n).padStart(2, "0");

function describe(ms, zone) {
  const p = partsOf(ms, zone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)} ${p.weekday} (${zone}, ${p.offset})`;
}

/** "2026-03-01 09:30", "2026-03-01T09:30" or "2026-03-01" as numbers. */
function parseWallTime(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{1,2}):(\d{2}))?$/.exec(text.trim());
  if (!match) throw new UsageError(`cannot read "${text}": write YYYY-MM-DD or "YYYY-MM-DD HH:MM"`);
  const [year, month, day, hour, minute] = match.slice(1).map((v) => Number(v ?? 0));
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) {
    throw new UsageError(`"${text}" is not a real date and time`);
  }
  return { year, month, day, hour, minute };
}

/**
 * The instant at which the clocks of `zone` show the wall time `w`. A time that a daylight-saving change skips
 * (02:30 on the night clocks jump from 02:00 to 03:00) becomes the instant just after the jump.
 */
function wallTimeToInstant(w, zone) {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  const offsetAt = (ms) => {
    const p = partsOf(ms, zone);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
  };
  // The offset before and after a possible daylight-saving change near that time.
  const first = asUtc - offsetAt(asUtc);
  const second = asUtc - offsetAt(first);
  const shows = (ms) => {
    const p = partsOf(ms, zone);
    return p.hour === w.hour && p.minute === w.minute && p.day === w.day;
  };
  const instant = [second, first].find(shows);
  return instant === undefined ? { instant: Math.max(first, second), skipped: true } : { instant, skipped: false };
}

function skippedNote(skipped, zone) {
  return skipped ? [`(that time does not exist in ${zone}: the clocks skip it, so the time just after is used)`] : [];
}

function duration(ms) {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const units = [["day", Math.floor(minutes / 1440)], ["hour", Math.floor(minutes / 60) % 24], ["minute", minutes % 60]];
  const text = units.filter(([, n]) => n > 0).map(([u, n]) => `${n} ${u}${n === 1 ? "" : "s"}`).join(" ") || "less than a minute";
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

const commands = {
  now(zones) {
    const now = Date.now();
    return (zones.length > 0 ? zones : ["UTC"]).map((z) => describe(now, checkZone(z)));
  },
  convert([when, from, ...to]) {
    if (!when || !from || to.length === 0) throw new UsageError("convert needs a time, a zone FROM and at least one zone TO");
    const { instant, skipped } = wallTimeToInstant(parseWallTime(when), checkZone(from));
    return [describe(instant, from), ...to.map((z) => `= ${describe(instant, checkZone(z))}`), ...skippedNote(skipped, from)];
  },
  until([when, zone = "UTC"]) {
    if (!when) throw new UsageError("until needs a date");
    const { instant, skipped } = wallTimeToInstant(parseWallTime(when), checkZone(zone));
    return [`${describe(instant, zone)}: ${duration(instant - Date.now())}`, ...skippedNote(skipped, zone)];
  },
  weekday([date]) {
    if (!date) throw new UsageError("weekday needs a date");
    const w = parseWallTime(date);
    return [`${date} is a ${partsOf(Date.UTC(w.year, w.month - 1, w.day, 12), "UTC").weekday}`];
  },
};

const [command, ...args] = process.argv.slice(2);
try {
  const run = commands[command];
  if (!run) throw new UsageError(command ? `unknown command "${command}"` : "no command given");
  console.log(run(args).join("\n"));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`error: ${err.message}\n${USAGE}`);
  process.exitCode = 2;
}
