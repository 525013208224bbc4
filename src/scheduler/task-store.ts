/**
 * Tasks in the store: each task's record under its own key, and the index of live tasks (next run, creator) as
 * an append-only log (index-log.ts), which is all a scheduler reads at start and what /tasks and the per-user cap
 * count from; the task record itself (with its latest runs) is read when it is due.
 */
import { randomBytes } from "node:crypto";
import type { Namespace, NamespaceEntry, Store } from "../infra/store/types.js";
import { Batcher } from "./batcher.js";
import { IndexLog } from "./index-log.js";
import { creatorOf, LIVE_STATUSES, type IndexEntry, type LiveEntry, type TaskCreator, type TaskRecord } from "./types.js";

export type { IndexEntry } from "./types.js";

/** No 0/o, 1/i/l: ids are read off a phone and typed back. */
const ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
const ID_LENGTH = 8;
const LOCK = { leaseMs: 30_000, waitMs: 60_000 };
/**
 * How stale the per-user count may be: the cap was never atomic across replicas (count, then create), and a
 * second of lag spares a store read per task created.
 */
const COUNT_MAX_AGE_MS = 1_000;
/** Task records per write: concurrent saves (a burst of creations, of runs) share one statement and commit. */
const RECORDS_PER_WRITE = 500;
/** Random bytes drawn at a time for ids: one call per id costs more than the rest of creating a task's id. */
const RANDOM_POOL = 4_096;

export function isLive(task: Pick<TaskRecord, "status">): boolean {
  return LIVE_STATUSES.includes(task.status);
}

export function indexEntryOf(task: TaskRecord): IndexEntry {
  const { trigger } = task;
  return {
    due: task.status === "active" ? task.nextRunAt : null,
    cron: trigger.type === "cron" ? `${trigger.timezone} ${trigger.expression}` : null,
  };
}

export function sameEntry(a: IndexEntry, b: IndexEntry): boolean {
  return a.due === b.due && a.cron === b.cron;
}

export class TaskStore {
  private readonly ns: Namespace<unknown>;
  private readonly index: IndexLog;
  private readonly records: Batcher<NamespaceEntry<unknown>>;
  private random = Buffer.alloc(0);
  private randomUsed = 0;

  /** `keepFinishedMs`: how long a finished task (and its runs) stays readable. */
  constructor(
    private readonly store: Store,
    private readonly keepFinishedMs: number,
  ) {
    this.ns = store.namespace<unknown>("tasks");
    this.index = new IndexLog(store);
    this.records = new Batcher((entries) => this.ns.setMany(entries), RECORDS_PER_WRITE);
  }

  /**
   * A random id no live task has. 31^8 (about 8.5 * 10^11) ids: meeting a finished task's id, still readable
   * for a few days, is too unlikely to spend a store read per task on.
   */
  newId(): string {
    for (;;) {
      let id = "";
      for (let i = 0; i < ID_LENGTH; i++) id += ID_ALPHABET[this.randomByte() % ID_ALPHABET.length];
      if (!this.index.has(id)) return id;
    }
  }

  private randomByte(): number {
    if (this.randomUsed >= this.random.length) {
      this.random = randomBytes(RANDOM_POOL);
      this.randomUsed = 0;
    }
    return this.random[this.randomUsed++]!;
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    return (await this.ns.get(`task:${id}`)) as TaskRecord | undefined;
  }

  /** Writes the task, and the index when its entry changed; `previous` is the stored version, if any. */
  async save(task: TaskRecord, previous: TaskRecord | undefined): Promise<void> {
    const live = isLive(task);
    await this.records.add({ key: `task:${task.id}`, value: task, ttlMs: live ? undefined : this.keepFinishedMs });
    const entry = live ? indexEntryOf(task) : null;
    const before = previous && isLive(previous) ? indexEntryOf(previous) : null;
    if (entry === before || (entry && before && sameEntry(entry, before))) return;
    await this.index.append(task.id, entry ? { ...entry, creator: creatorOf(task.creator) } : null);
  }

  /** Every live task's index entry, up to date with the store. */
  async loadIndex(): Promise<ReadonlyMap<string, LiveEntry>> {
    await this.index.refresh();
    return this.index.entries();
  }

  /** The live tasks `creator` made. */
  async liveTasksOf(creator: Pick<TaskCreator, "channel" | "userId">): Promise<TaskRecord[]> {
    await this.index.refresh();
    const tasks = await Promise.all([...this.index.idsOf(creatorOf(creator))].map((id) => this.get(id)));
    return tasks.filter((t): t is TaskRecord => t !== undefined && isLive(t));
  }

  /** How many live tasks `creator` has; others' changes of the last second may be missing. */
  async countLive(creator: Pick<TaskCreator, "channel" | "userId">): Promise<number> {
    await this.index.refreshIfOlder(COUNT_MAX_AGE_MS);
    return this.index.idsOf(creatorOf(creator)).size;
  }

  /** Changes whenever a live task is added, changed or removed. */
  async revision(): Promise<string> {
    await this.index.refresh();
    return this.index.revision;
  }

  /** Holds the task's lock across replicas: every change to a task and every run of it happens under it. */
  withTaskLock<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    return this.store.coordinator.withLock(`task:${taskId}`, fn, LOCK);
  }
}
