/** When a task's runs fall: its next slot after an instant, its upcoming runs, and its schedule in words. */
import type { Cron } from "croner";
import { cronSlotAfter, cronSlotAtOrBefore, parseCron } from "./cron.js";
import { formatDuration } from "./durations.js";
import type { TaskRecord, Trigger } from "./types.js";

const CACHE_LIMIT = 1_000;
const schedules = new Map<string, Cron>();

/** Parsed once per expression and zone; the expression was validated when the task was created. */
function cronOf(trigger: Extract<Trigger, { type: "cron" }>): Cron {
  const key = `${trigger.timezone} ${trigger.expression}`;
  let schedule = schedules.get(key);
  if (!schedule) {
    if (schedules.size >= CACHE_LIMIT) schedules.clear();
    schedule = parseCron(trigger.expression, trigger.timezone);
    schedules.set(key, schedule);
  }
  return schedule;
}

export function isRecurring(trigger: Trigger): boolean {
  return trigger.type !== "once";
}

/** The trigger's first slot strictly after `after`, ignoring the task's limits. */
export function slotAfter(trigger: Trigger, after: number): number | null {
  switch (trigger.type) {
    case "once":
      return trigger.at > after ? trigger.at : null;
    case "interval": {
      if (after < trigger.startAt) return trigger.startAt;
      const elapsed = Math.floor((after - trigger.startAt) / trigger.everyMs) + 1;
      return trigger.startAt + elapsed * trigger.everyMs;
    }
    case "cron":
      return cronSlotAfter(cronOf(trigger), after);
  }
}

/** The task's next slot after `after` within its `until` and `maxRuns`, or null when it has none left. */
export function nextRunAfter(task: Pick<TaskRecord, "trigger" | "until" | "maxRuns" | "runCount">, after: number): number | null {
  if (task.maxRuns !== null && task.runCount >= task.maxRuns) return null;
  const slot = slotAfter(task.trigger, after);
  if (slot === null || (task.until !== null && slot > task.until)) return null;
  return slot;
}

/** Up to `count` of the task's runs from its next one on, within its limits. */
export function upcomingRuns(task: TaskRecord, count: number): number[] {
  const runs: number[] = [];
  let slot = task.status === "active" ? task.nextRunAt : null;
  let runCount = task.runCount;
  while (slot !== null && runs.length < count) {
    runs.push(slot);
    runCount += 1;
    slot = nextRunAfter({ ...task, runCount }, slot);
  }
  return runs;
}

/** The latest slot at or before `now`, starting from `first` (a slot that was missed). */
export function latestSlotUpTo(trigger: Trigger, first: number, now: number): number {
  if (trigger.type === "interval") return first + Math.floor((now - first) / trigger.everyMs) * trigger.everyMs;
  if (trigger.type === "once") return first;
  return Math.max(first, cronSlotAtOrBefore(cronOf(trigger), now) ?? first);
}

export function describeTrigger(trigger: Trigger): string {
  switch (trigger.type) {
    case "once":
      return "once";
    case "interval":
      return `every ${formatDuration(trigger.everyMs)}`;
    case "cron":
      return `cron "${trigger.expression}" (${trigger.timezone})`;
  }
}
