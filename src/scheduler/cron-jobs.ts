/**
 * Recurring cron tasks run as node-cron jobs: node-cron keeps the time zone (DST included), prevents overlapping
 * runs, and asks the store-backed RunCoordinator which replica runs each slot. One job per cron task; one-shot
 * and interval tasks never get one (see DueIndex).
 */
import { createTask, type Logger as CronLogger, type ScheduledTask } from "node-cron";
import type { Logger } from "../infra/log.js";
import type { Coordinator } from "../infra/store/types.js";
import { CLAIM_TTL_MS, StoreRunCoordinator } from "./claims.js";
import type { TaskRecord } from "./types.js";

/** A slot that fires later than this (a blocked event loop) is reported missed instead of run. */
const MISSED_TOLERANCE_MS = 60_000;

export interface CronJobsDeps {
  coordinator: Coordinator;
  log: Logger;
  /** Runs the slot; this replica already won it. Never rejects. */
  onSlot(taskId: string, slot: number): Promise<void>;
  /** node-cron skipped the slot: it came too late. */
  onMissed(taskId: string, slot: number): void;
}

export class CronJobs {
  /** Each job with the schedule it was made for, so an unrelated change of the task keeps the job. */
  private readonly jobs = new Map<string, { job: ScheduledTask; schedule: string }>();
  private readonly runCoordinator: StoreRunCoordinator;
  private readonly cronLog: CronLogger;

  constructor(private readonly deps: CronJobsDeps) {
    this.runCoordinator = new StoreRunCoordinator(deps.coordinator);
    const log = deps.log.child({ component: "node-cron" });
    this.cronLog = {
      info: (message) => log.info(message),
      warn: (message) => log.warn(message),
      error: (message, err) => log.error({ err: err ?? message }, typeof message === "string" ? message : "node-cron error"),
      debug: (message) => log.debug(typeof message === "string" ? message : { err: message }, "node-cron"),
    };
  }

  get size(): number {
    return this.jobs.size;
  }

  /** Starts the task's job, or replaces it when the task's expression or zone changed. */
  set(task: TaskRecord): void {
    if (task.trigger.type !== "cron") return;
    const schedule = `${task.trigger.timezone} ${task.trigger.expression}`;
    if (this.jobs.get(task.id)?.schedule === schedule) return;
    this.delete(task.id);
    const job = createTask(
      task.trigger.expression,
      (context) => this.deps.onSlot(task.id, context.date.getTime()),
      {
        name: task.id,
        timezone: task.trigger.timezone,
        noOverlap: true,
        distributed: true,
        runCoordinator: this.runCoordinator,
        distributedLease: CLAIM_TTL_MS,
        missedExecutionTolerance: MISSED_TOLERANCE_MS,
        logger: this.cronLog,
        unref: true,
      },
    );
    job.on("execution:missed", (context) => this.deps.onMissed(task.id, context.date.getTime()));
    void job.start();
    this.jobs.set(task.id, { job, schedule });
  }

  delete(taskId: string): void {
    const entry = this.jobs.get(taskId);
    if (!entry) return;
    this.jobs.delete(taskId);
    void entry.job.destroy();
  }

  stopAll(): void {
    for (const id of [...this.jobs.keys()]) this.delete(id);
  }
}
