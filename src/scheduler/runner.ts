/**
 * One run of a task, start to end, under the task's lock: re-read the task (the store is the truth, not the
 * timer that fired), claim the slot, deliver, then store the task moved to its next slot with the run's record.
 * A claim found already taken while the task has not moved on means its claimant died mid-run: the run is
 * recorded as interrupted and not sent again, since it may have gone out.
 */
import { schedulerLateness } from "../infra/metrics.js";
import type { Logger } from "../infra/log.js";
import type { Coordinator } from "../infra/store/types.js";
import { claimRun } from "./claims.js";
import type { SchedulerConfig } from "./config.js";
import { DeliveryError, type Delivery } from "./delivery.js";
import type { MissedNotices } from "./missed.js";
import type { TaskStore } from "./task-store.js";
import { isRecurring, latestSlotUpTo, nextRunAfter } from "./triggers.js";
import type { Clock } from "../core/clock.js";
import type { Speech } from "../core/i18n.js";
import type { RunRecord, RunStatus, TaskRecord, TaskStatus } from "./types.js";

/** A recurring slot starting later than this was missed (downtime, a stall), and follows config.missedRecurring. */
export const RECURRING_LATE_MS = 60_000;

export type SlotOutcome = RunStatus | "skipped" | "stale";

export interface SlotResult {
  outcome: SlotOutcome;
  /** The task as stored after the run; undefined when it no longer exists. */
  task: TaskRecord | undefined;
}

export interface RunnerDeps {
  tasks: TaskStore;
  coordinator: Coordinator;
  clock: Clock;
  config: SchedulerConfig;
  delivery: Delivery;
  missed: MissedNotices;
  log: Logger;
  /** Aborted when the scheduler stops: backoff waits and agent turns end. */
  signal: AbortSignal;
}

export class Runner {
  private readonly graceMs: number;

  constructor(private readonly deps: RunnerDeps) {
    this.graceMs = deps.config.gracePeriodMinutes * 60_000;
  }

  /** Runs the task's scheduled `slot`, unless the task has moved past it (then the outcome is "stale"). */
  runSlot(taskId: string, slot: number): Promise<SlotResult> {
    return this.deps.tasks.withTaskLock(taskId, async () => {
      const task = await this.deps.tasks.get(taskId);
      if (!task || task.status !== "active" || task.nextRunAt === null || slot < task.nextRunAt) return { outcome: "stale", task };
      const now = this.deps.clock.now();
      // Lateness counts from the stored next slot: a timer that fires after a stall names a later one.
      if (isRecurring(task.trigger) && now - task.nextRunAt > RECURRING_LATE_MS) return this.catchUp(task, task.nextRunAt, now);
      return this.execute(task, slot);
    });
  }

  /** Runs the task now, outside its schedule (which it leaves as it is). */
  runNow(taskId: string): Promise<RunRecord | undefined> {
    return this.deps.tasks.withTaskLock(taskId, async () => {
      const task = await this.deps.tasks.get(taskId);
      if (!task) return undefined;
      const run = await this.deliver(task, this.newRun(task, this.deps.clock.now(), "manual"));
      await this.deps.tasks.save(this.withRun(task, run, { updatedAt: this.deps.clock.now() }), task);
      return run;
    });
  }

  /** A recurring task whose slot passed while nobody ran it (downtime, a stall): skip to the next, or run the latest (config). */
  private async catchUp(task: TaskRecord, firstMissed: number, now: number): Promise<SlotResult> {
    if (this.deps.config.missedRecurring === "latest") return this.execute(task, latestSlotUpTo(task.trigger, firstMissed, now));
    const error = "missed while the gateway was not running (or stalled); missedRecurring is none, so it was skipped";
    const run = this.ended(this.newRun(task, firstMissed, "scheduled"), "missed", error);
    return { outcome: "skipped", task: await this.moveOn(task, run) };
  }

  private async execute(task: TaskRecord, slot: number): Promise<SlotResult> {
    const run = this.newRun(task, slot, "scheduled");
    if (!(await claimRun(this.deps.coordinator, task.id, slot))) {
      const error = "an earlier attempt claimed this run and stopped before recording its end; not sent again";
      const interrupted = this.ended({ ...run, startedAt: null }, "interrupted", error);
      return { outcome: "interrupted", task: await this.moveOn(task, interrupted) };
    }
    if (run.lateMs > this.graceMs) {
      if (!isRecurring(task.trigger)) this.deps.missed.add(task, slot);
      const missed = this.ended(run, "missed", `more than ${this.deps.config.gracePeriodMinutes} min late`);
      return { outcome: "missed", task: await this.moveOn(task, missed) };
    }
    schedulerLateness.observe(run.lateMs / 1000);
    const ended = await this.deliver(task, run);
    // One line per fired run, whatever its end: the operator's record that a reminder went out (or did not).
    this.deps.log.info(
      { taskId: task.id, channel: task.target.channel, chatId: task.target.chatId, outcome: ended.status, lateMs: run.lateMs },
      "scheduled task fired",
    );
    return { outcome: ended.status, task: await this.moveOn(task, ended) };
  }

  /** Delivers the run and returns its finished record; never throws for a delivery failure. */
  private async deliver(task: TaskRecord, run: RunRecord): Promise<RunRecord> {
    try {
      const { receipts, attempts, skipped } = await this.deps.delivery.run(task, run.scheduledFor, run.lateMs, this.deps.signal);
      const ended = skipped !== undefined ? this.ended(run, "skipped", skipped) : this.ended(run, "delivered", null);
      return { ...ended, attempts, receipts };
    } catch (err) {
      this.deps.log.error({ err, taskId: task.id, chatId: task.target.chatId, slot: run.scheduledFor }, "scheduled run failed");
      const attempts = err instanceof DeliveryError ? err.attempts : 0;
      return { ...this.ended(run, "failed", err instanceof Error ? err.message : String(err)), attempts };
    }
  }

  /** Stores the task past the run's slot: counted, with its next slot or ended, paused after too many failures. */
  private async moveOn(task: TaskRecord, run: RunRecord): Promise<TaskRecord> {
    const now = this.deps.clock.now();
    const counted = run.status !== "missed";
    const failures = run.status === "failed" ? task.consecutiveFailures + 1 : run.status === "delivered" ? 0 : task.consecutiveFailures;
    const moved = this.withRun(task, run, {
      runCount: task.runCount + (counted ? 1 : 0),
      lastRunAt: counted ? run.scheduledFor : task.lastRunAt,
      consecutiveFailures: failures,
      updatedAt: now,
    });
    const next = nextRunAfter(moved, Math.max(run.scheduledFor, now));
    const pause = isRecurring(task.trigger) && failures >= this.deps.config.pauseAfterFailures;
    moved.status = pause ? "paused" : next !== null ? "active" : endStatus(run.status);
    moved.nextRunAt = moved.status === "active" ? next : null;
    await this.deps.tasks.save(moved, task);
    if (pause) await this.tellPaused(moved);
    return moved;
  }

  private async tellPaused(task: TaskRecord): Promise<void> {
    const words = ({ t }: Speech): string => t("schedules.paused", { name: task.name, id: task.id, count: task.consecutiveFailures });
    try {
      await this.deps.delivery.notify(task, words, this.deps.signal);
    } catch (err) {
      this.deps.log.error({ err, taskId: task.id, chatId: task.target.chatId }, "could not tell the creator their task was paused");
    }
  }

  /** The task with `run` added to its latest runs, and `changes`. */
  private withRun(task: TaskRecord, run: RunRecord, changes: Partial<TaskRecord>): TaskRecord {
    return { ...task, ...changes, runs: [...task.runs, run].slice(-this.deps.config.runsKept) };
  }

  private newRun(task: TaskRecord, slot: number, reason: RunRecord["reason"]): RunRecord {
    const now = this.deps.clock.now();
    return {
      taskId: task.id,
      scheduledFor: slot,
      reason,
      status: "delivered",
      startedAt: now,
      finishedAt: null,
      lateMs: Math.max(0, now - slot),
      attempts: 0,
      receipts: [],
      error: null,
    };
  }

  private ended(run: RunRecord, status: RunStatus, error: string | null): RunRecord {
    return { ...run, status, error, finishedAt: this.deps.clock.now() };
  }
}

/** What a task with no slot left ends as, after its last run ended so. */
function endStatus(ending: RunStatus): TaskStatus {
  if (ending === "failed") return "failed";
  if (ending === "missed") return "missed";
  return "done";
}
