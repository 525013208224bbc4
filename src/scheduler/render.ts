/** Tasks and runs in words, in the task's time zone: for tool results, slash commands and the CLI alike. */
import type { Speech } from "../core/i18n.js";
import { describeLocalTime } from "../core/time.js";
import { ENGLISH } from "../infra/i18n/index.js";
import { formatDuration } from "./durations.js";
import { spokenDuration, spokenSchedule } from "./spoken.js";
import { describeTrigger, upcomingRuns } from "./triggers.js";
import type { RunRecord, TaskRecord } from "./types.js";

const NEXT_RUNS_SHOWN = 3;

export function timeIn(instant: number, zone: string): string {
  return describeLocalTime(new Date(instant), zone);
}

/** The next runs of the task, rendered in its zone. */
export function nextRunsOf(task: TaskRecord, count = NEXT_RUNS_SHOWN): string[] {
  return upcomingRuns(task, count).map((at) => timeIn(at, task.timezone));
}

/**
 * One sentence the model (or the command) can repeat to the user word for word; in English for the model, in the
 * person's language for the command.
 */
export function confirmationOf(task: TaskRecord, now: number, speech: Speech = ENGLISH): string {
  const what = task.kind === "reminder" ? "reminders.reminder" : "reminders.task";
  const named = { name: task.name, id: task.id };
  const next = upcomingRuns(task, 1)[0];
  if (next === undefined) return speech.t(`${what}.noRunLeft`, named);
  const when = { ...named, when: speech.time(next, task.timezone), wait: spokenDuration(next - now, speech.t) };
  if (task.trigger.type === "once") return speech.t(`${what}.once`, when);
  return speech.t(`${what}.repeating`, { ...when, schedule: spokenSchedule(task.trigger, speech) });
}

/** The task as a tool result: plain fields, times already in the task's zone. */
export function taskView(task: TaskRecord): Record<string, unknown> {
  return {
    task_id: task.id,
    name: task.name,
    kind: task.kind,
    status: task.status,
    [task.kind === "reminder" ? "message" : "prompt"]: task.text,
    schedule: describeTrigger(task.trigger),
    timezone: task.timezone,
    next_runs: nextRunsOf(task),
    ...(task.until !== null ? { until: timeIn(task.until, task.timezone) } : {}),
    ...(task.maxRuns !== null ? { max_runs: task.maxRuns } : {}),
    runs_so_far: task.runCount,
    ...(task.consecutiveFailures > 0 ? { consecutive_failures: task.consecutiveFailures } : {}),
    ...(task.silent ? { silent: true } : {}),
  };
}

export function runView(run: RunRecord, zone: string): Record<string, unknown> {
  return {
    scheduled_for: timeIn(run.scheduledFor, zone),
    reason: run.reason,
    status: run.status,
    ...(run.lateMs > 0 ? { late_by: formatDuration(run.lateMs) } : {}),
    attempts: run.attempts,
    receipts: run.receipts.map((r) => r.messageId),
    ...(run.error !== null ? { error: run.error } : {}),
  };
}

/**
 * "k3m9x2ab  reminder "standup": next Saturday 2026-03-28 09:00 (Europe/Berlin, GMT+01:00), every weekday at 9:00"
 * in the reader's language; without a speech (the CLI) in English, with the cron expression as stored.
 */
export function taskLine(task: TaskRecord, speech?: Speech): string {
  const { t } = speech ?? ENGLISH;
  const next = task.status !== "paused" && task.nextRunAt !== null ? t("schedules.next", { when: (speech ?? ENGLISH).time(task.nextRunAt, task.timezone) }) : t(`schedules.status.${task.status}`);
  const schedule = speech ? spokenSchedule(task.trigger, speech) : describeTrigger(task.trigger);
  return t("schedules.line", { id: task.id, kind: t(`schedules.kind.${task.kind === "reminder" ? "reminder" : "task"}`), name: task.name, next, schedule });
}

/** "Saturday 2026-03-28 09:00 (...)  delivered, 2 s late, 1 attempt, messages 17, 18" */
export function runLine(run: RunRecord, zone: string): string {
  const parts = [run.reason === "manual" ? `${run.status} (run by hand)` : run.status];
  if (run.lateMs >= 1_000) parts.push(`${formatDuration(run.lateMs)} late`);
  if (run.attempts > 0) parts.push(`${run.attempts} attempt${run.attempts === 1 ? "" : "s"}`);
  if (run.receipts.length > 0) parts.push(`message${run.receipts.length === 1 ? "" : "s"} ${run.receipts.map((r) => r.messageId).join(", ")}`);
  if (run.error !== null) parts.push(`error: ${run.error}`);
  return `${timeIn(run.scheduledFor, zone)}  ${parts.join(", ")}`;
}
