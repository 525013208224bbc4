/**
 * The scheduler's moving parts: which tasks are armed where (one-shot and interval tasks in the DueIndex, cron
 * tasks as croner jobs), the queue their runs go through, and keeping in step with tasks other replicas or
 * the CLI changed. The task records in the store stay the truth: arming only decides when to look at one.
 */
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { SchedulerConfig } from "./config.js";
import { CronJobs } from "./cron-jobs.js";
import type { Delivery } from "./delivery.js";
import { DueIndex, type DueEntry } from "./due-index.js";
import { MissedNotices } from "./missed.js";
import { Runner, type SlotResult } from "./runner.js";
import { indexEntryOf, sameEntry, type IndexEntry, type TaskStore } from "./task-store.js";
import type { Clock } from "../core/clock.js";
import type { RunRecord, TaskRecord } from "./types.js";
import { WorkQueue } from "./work-queue.js";

export interface EngineDeps {
  config: SchedulerConfig;
  store: Store;
  tasks: TaskStore;
  delivery: Delivery;
  clock: Clock;
  log: Logger;
}

export class SchedulerEngine {
  private readonly due: DueIndex;
  private readonly cron: CronJobs;
  private readonly queue: WorkQueue;
  private readonly runner: Runner;
  private readonly missed: MissedNotices;
  /** What is armed, by task id, as the index describes it: compared with the index to spot others' changes. */
  private readonly known = new Map<string, IndexEntry>();
  private readonly stopping = new AbortController();
  private seenRevision: string | undefined;
  private cancelSync: (() => void) | null = null;
  private started = false;

  constructor(private readonly deps: EngineDeps) {
    const { config, clock, log } = deps;
    this.missed = new MissedNotices(config.gracePeriodMinutes * 60_000);
    // Once a burst of runs is over, each creator gets one summary of what they missed in it.
    this.queue = new WorkQueue(config.maxConcurrentRuns, () =>
      this.missed.isEmpty ? null : () => this.missed.flush(this.deps.delivery, this.stopping.signal, this.deps.log),
    );
    this.due = new DueIndex(clock, (entries) => this.onDue(entries));
    this.cron = new CronJobs({
      coordinator: deps.store.coordinator,
      log,
      // Through the queue, awaited: croner sees the run end, which is what its overlap protection relies on.
      onSlot: (taskId, slot) =>
        new Promise<void>((resolve) => this.queue.push(() => this.run(taskId, () => this.runner.runSlot(taskId, slot)).finally(resolve))),
    });
    this.runner = new Runner({ ...deps, coordinator: deps.store.coordinator, missed: this.missed, signal: this.stopping.signal });
  }

  /** Tasks armed: one-shot and interval in the due index, cron as croner jobs. */
  get armed(): { due: number; cron: number } {
    return { due: this.due.size, cron: this.cron.size };
  }

  /** Loads the index, arms every live task, and runs what came due while the gateway was down. */
  async start(): Promise<void> {
    this.started = true;
    this.seenRevision = await this.deps.tasks.revision();
    const index = await this.deps.tasks.loadIndex();
    for (const [id, entry] of index) await this.armEntry(id, entry);
    this.due.start();
    this.scheduleSync();
    this.deps.log.info({ due: this.due.size, cron: this.cron.size }, "scheduler started");
  }

  /**
   * Stops arming and firing. Runs in progress get `graceMs` (real time: shutdown is not scheduler time) to
   * finish; then their backoff waits and agent turns are aborted and they are left behind. A run cut off so
   * keeps its claim, and the next start records it as interrupted instead of sending it again.
   */
  async stop(graceMs: number): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.cancelSync?.();
    this.due.stop();
    this.cron.stopAll();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue.idle(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.stopping.abort(new Error("the scheduler is stopping"));
  }

  /** Arms the task as it now is (or disarms it when it is finished or paused). */
  arm(taskId: string, task: TaskRecord | undefined): void {
    if (!task || task.status !== "active" || task.nextRunAt === null) {
      this.disarm(taskId, task);
      return;
    }
    this.known.set(taskId, indexEntryOf(task));
    if (task.trigger.type === "cron") {
      this.due.delete(taskId);
      this.cron.set(task);
      // croner only fires future slots; one that passed (during downtime) runs now, as the runner's rules for late slots say.
      if (task.nextRunAt <= this.deps.clock.now()) this.enqueue(taskId, task.nextRunAt);
    } else {
      this.cron.delete(taskId);
      this.due.set(taskId, task.nextRunAt);
    }
  }

  /** Runs the task now, outside its schedule, and returns the run's record. */
  runNow(taskId: string): Promise<RunRecord | undefined> {
    return this.runner.runNow(taskId);
  }

  /** Resolves when no run is queued or in progress. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Re-reads the index when its revision changed: tasks created, changed or finished elsewhere. */
  async sync(): Promise<void> {
    const revision = await this.deps.tasks.revision();
    if (revision === this.seenRevision) return;
    this.seenRevision = revision;
    const index = await this.deps.tasks.loadIndex();
    for (const [id, entry] of index) {
      const known = this.known.get(id);
      if (!known || !sameEntry(known, entry)) await this.armEntry(id, entry);
    }
    // Gone from the index: finished elsewhere, or created here after the index was read; the record decides.
    for (const id of [...this.known.keys()]) if (!index.has(id)) this.arm(id, await this.deps.tasks.get(id));
  }

  private disarm(taskId: string, task: TaskRecord | undefined): void {
    this.due.delete(taskId);
    this.cron.delete(taskId);
    if (task && task.status === "paused") this.known.set(taskId, indexEntryOf(task));
    else this.known.delete(taskId);
  }

  /** One-shot and interval tasks are armed from the index alone (the record is read when due); cron needs its record. */
  private async armEntry(id: string, entry: IndexEntry): Promise<void> {
    if (entry.cron !== null) {
      this.arm(id, await this.deps.tasks.get(id));
      return;
    }
    this.known.set(id, entry);
    if (entry.due === null) this.due.delete(id);
    else this.due.set(id, entry.due);
  }

  private onDue(entries: DueEntry[]): void {
    for (const { id, due } of shuffleTies(entries)) this.enqueue(id, due);
  }

  private enqueue(taskId: string, slot: number): void {
    this.queue.push(() => this.run(taskId, () => this.runner.runSlot(taskId, slot)));
  }

  /** Runs one slot job and re-arms its task from the outcome. */
  private async run(taskId: string, job: () => Promise<SlotResult>): Promise<void> {
    try {
      const { task } = await job();
      if (this.started) this.arm(taskId, task);
    } catch (err) {
      // Forgetting the revision makes the next sync re-read the index, which re-arms the task: a retry.
      this.deps.log.error({ err, taskId }, "a scheduled run could not be handled; retrying at the next sync");
      this.known.delete(taskId);
      this.seenRevision = undefined;
    }
  }

  private scheduleSync(): void {
    this.cancelSync = this.deps.clock.setTimer(this.deps.config.syncIntervalMs, () => {
      void this.sync()
        .catch((err: unknown) => this.deps.log.warn({ err }, "scheduler sync failed; retrying at the next interval"))
        .finally(() => {
          if (this.started) this.scheduleSync();
        });
    });
  }
}

/**
 * Entries due at the same time in random order (earliest still first): replicas then start a burst at different
 * tasks and share it, instead of all waiting on the same task's lock one after another.
 */
function shuffleTies(entries: DueEntry[]): DueEntry[] {
  for (let start = 0; start < entries.length; ) {
    let end = start + 1;
    while (end < entries.length && entries[end]!.due === entries[start]!.due) end++;
    for (let i = end - 1; i > start; i--) {
      const j = start + Math.floor(Math.random() * (i - start + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    start = end;
  }
  return entries;
}
