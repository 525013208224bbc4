/**
 * Recurring cron tasks run as croner jobs (see cron.ts): croner keeps the time zone, summer time included, and
 * skips a slot that comes while the task's previous run is still going; the store elects the one replica that
 * runs each slot. One job per cron task; one-shot and interval tasks never get one (see DueIndex).
 */
import type { Cron } from "croner";
import type { Logger } from "../infra/log.js";
import type { Coordinator } from "../infra/store/types.js";
import { electForCronSlot } from "./claims.js";
import { cronSlotAtOrBefore, startCron } from "./cron.js";
import type { TaskRecord } from "./types.js";

export interface CronJobsDeps {
  coordinator: Coordinator;
  log: Logger;
  /**
   * Runs the slot; this replica already won it. Never rejects. A slot can come late (a stalled process): the
   * runner's rules for missed slots decide what happens then.
   */
  onSlot(taskId: string, slot: number): Promise<void>;
}

export class CronJobs {
  /** Each job with the schedule it was made for, so an unrelated change of the task keeps the job. */
  private readonly jobs = new Map<string, { job: Cron; schedule: string }>();

  constructor(private readonly deps: CronJobsDeps) {}

  get size(): number {
    return this.jobs.size;
  }

  /** Starts the task's job, or replaces it when the task's expression or zone changed. */
  set(task: TaskRecord): void {
    if (task.trigger.type !== "cron") return;
    const { expression, timezone } = task.trigger;
    const schedule = `${timezone} ${expression}`;
    if (this.jobs.get(task.id)?.schedule === schedule) return;
    this.delete(task.id);
    const job = startCron(expression, timezone, (self) => this.fire(task.id, self));
    this.jobs.set(task.id, { job, schedule });
  }

  delete(taskId: string): void {
    const entry = this.jobs.get(taskId);
    if (!entry) return;
    this.jobs.delete(taskId);
    entry.job.stop();
  }

  stopAll(): void {
    for (const id of [...this.jobs.keys()]) this.delete(id);
  }

  /** croner calls at or after a slot; the slot is the latest one up to now, which is later than planned after a stall. */
  private async fire(taskId: string, job: Cron): Promise<void> {
    const slot = cronSlotAtOrBefore(job, Date.now());
    if (slot === null) return;
    try {
      if (await electForCronSlot(this.deps.coordinator, taskId, slot)) await this.deps.onSlot(taskId, slot);
    } catch (err) {
      this.deps.log.error({ err, taskId, slot }, "could not elect the replica for a cron slot; the task catches up at its next slot");
    }
  }
}
