/**
 * Schedules, durations and the scheduler's refusals in a person's language, for the slash commands: "every weekday
 * at 9:00" / "每个工作日 9:00". A cron expression of another shape is told by cronstrue in the same language.
 */
import cronstrue from "cronstrue";
import "cronstrue/locales/zh_CN.js";
import type { MessageValues, Speech, Translate } from "../core/i18n.js";
import { durationParts } from "./durations.js";
import type { Trigger } from "./types.js";

export function spokenDuration(ms: number, t: Translate): string {
  return durationParts(ms)
    .map(([count, unit]) => t(`schedules.duration.${unit}`, { count }))
    .join(t("schedules.duration.separator"));
}

export function spokenSchedule(trigger: Trigger, speech: Speech): string {
  const { t } = speech;
  switch (trigger.type) {
    case "once":
      return t("schedules.once");
    case "interval":
      return t("schedules.every", { duration: spokenDuration(trigger.everyMs, t) });
    case "cron":
      return atTimeOfDay(trigger.expression, speech) ?? t("schedules.cron", { description: cronInWords(trigger.expression, speech), zone: trigger.timezone });
  }
}

/** cronstrue's words for an expression; the expression itself for the shapes croner takes and cronstrue does not ("FRI#L"). */
function cronInWords(expression: string, speech: Speech): string {
  try {
    return cronstrue.toString(expression, { locale: speech.locale === "zh-Hans" ? "zh_CN" : "en", use24HourTimeFormat: true });
  } catch {
    return `cron "${expression}"`;
  }
}

/** The shapes /remind makes ("30 9 * * 1-5": a time of day on some weekdays) in words; undefined for other shapes. */
function atTimeOfDay(expression: string, speech: Speech): string | undefined {
  const { t } = speech;
  const match = /^(\d{1,2}) (\d{1,2}) \* \* ([0-6*](?:[,-][0-6])*)$/.exec(expression.trim());
  if (!match) return undefined;
  const [, minute, hour, dow] = match;
  const time = `${Number(hour)}:${minute!.padStart(2, "0")}`;
  if (dow === "*") return t("schedules.daily", { time });
  if (dow === "1-5") return t("schedules.weekdays", { time });
  if (dow === "0,6" || dow === "6,0") return t("schedules.weekends", { time });
  if (!/^[0-6](,[0-6])*$/.test(dow!)) return undefined;
  const days = dow!.split(",").map((day) => t(`schedules.day.${day}`));
  return t("schedules.weekly", { days: new Intl.ListFormat(speech.locale, { type: "conjunction" }).format(days), time });
}

/** A refusal worded from the catalog, with the times and durations in it told in the reader's language and zone. */
export interface SpokenRefusal {
  key: string;
  values?: MessageValues;
  /** Values that are catalog keys themselves (a task's status), put in as their text. */
  words?: Readonly<Record<string, string>>;
  times?: Readonly<Record<string, { at: number; zone: string }>>;
  durations?: Readonly<Record<string, number>>;
}

export function spokenRefusal(refusal: SpokenRefusal, speech: Speech): string {
  const values: MessageValues = { ...refusal.values };
  for (const [name, key] of Object.entries(refusal.words ?? {})) values[name] = speech.t(key);
  for (const [name, { at, zone }] of Object.entries(refusal.times ?? {})) values[name] = speech.time(at, zone);
  for (const [name, ms] of Object.entries(refusal.durations ?? {})) values[name] = spokenDuration(ms, speech.t);
  return speech.t(`schedules.errors.${refusal.key}`, values);
}
