/**
 * Tasks in the store. A namespace has no listing, so live tasks are also entered in an index split over 1,024
 * shard keys (id -> next due time), which is all a scheduler reads at start; the task record itself (with its
 * latest runs) is read when it is due. Each user's task ids are kept under their own key, for /tasks and the
 * per-user cap; finished ids leave it lazily, when the cap is checked. Every index change is followed by a new
 * `revision`, which tells other replicas (and a running gateway, after the CLI) to look again.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Namespace, Store } from "../infra/store/types.js";
import { LIVE_STATUSES, type TaskCreator, type TaskRecord } from "./types.js";

const SHARDS = 1_024;
/** No 0/o, 1/i/l: ids are read off a phone and typed back. */
const ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
const ID_LENGTH = 8;
const LOCK = { leaseMs: 30_000, waitMs: 60_000 };

/** What the index knows of a live task. */
export interface IndexEntry {
  /** The next run; null while paused. */
  due: number | null;
  /** "zone expression" of a cron task, so a changed schedule is noticed; null for the others. */
  cron: string | null;
}

type ShardValue = Record<string, [due: number | null, cron: string | null]>;

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
  private revisionInFlight: Promise<void> = Promise.resolve();
  private revisionQueued: Promise<void> | null = null;

  /** `keepFinishedMs`: how long a finished task (and its runs) stays readable. */
  constructor(
    private readonly store: Store,
    private readonly keepFinishedMs: number,
  ) {
    this.ns = store.namespace<unknown>("tasks");
  }

  async newId(): Promise<string> {
    for (;;) {
      const id = [...randomBytes(ID_LENGTH)].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
      if ((await this.get(id)) === undefined) return id;
    }
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    return (await this.ns.get(`task:${id}`)) as TaskRecord | undefined;
  }

  /** Writes the task, and the index when its entry changed; `previous` is the stored version, if any. */
  async save(task: TaskRecord, previous: TaskRecord | undefined): Promise<void> {
    const live = isLive(task);
    await this.ns.set(`task:${task.id}`, task, live ? undefined : this.keepFinishedMs);
    if (!previous) await this.addToCreator(task);
    const entry = live ? indexEntryOf(task) : null;
    const before = previous && isLive(previous) ? indexEntryOf(previous) : null;
    if (entry === before || (entry && before && sameEntry(entry, before))) return;
    await this.updateShard(task.id, entry);
    await this.bumpRevision();
  }

  /** Every live task's index entry, read shard by shard. */
  async loadIndex(): Promise<Map<string, IndexEntry>> {
    const entries = new Map<string, IndexEntry>();
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, (_, i) => this.ns.get(`index:${i}`) as Promise<ShardValue | undefined>),
    );
    for (const shard of shards) {
      for (const [id, [due, cron]] of Object.entries(shard ?? {})) entries.set(id, { due, cron });
    }
    return entries;
  }

  /** The live tasks `creator` made. */
  async liveTasksOf(creator: Pick<TaskCreator, "channel" | "userId">): Promise<TaskRecord[]> {
    const ids = ((await this.ns.get(creatorKey(creator))) as string[] | undefined) ?? [];
    const tasks = await Promise.all(ids.map((id) => this.get(id)));
    return tasks.filter((t): t is TaskRecord => t !== undefined && isLive(t));
  }

  /**
   * How many live tasks `creator` has, counted exactly only when the list reaches `cap` (it also holds finished
   * ones): then the finished ones are dropped from it.
   */
  async countUpTo(creator: Pick<TaskCreator, "channel" | "userId">, cap: number): Promise<number> {
    const key = creatorKey(creator);
    const ids = ((await this.ns.get(key)) as string[] | undefined) ?? [];
    if (ids.length < cap) return ids.length;
    return this.store.coordinator.withLock(`tasks-${key}`, async () => {
      const live = (await this.liveTasksOf(creator)).map((t) => t.id);
      await this.ns.set(key, live);
      return live.length;
    }, LOCK);
  }

  /** Changes whenever a live task is added, changed or removed; undefined before the first task. */
  async revision(): Promise<string | undefined> {
    return (await this.ns.get("revision")) as string | undefined;
  }

  /** Holds the task's lock across replicas: every change to a task and every run of it happens under it. */
  withTaskLock<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    return this.store.coordinator.withLock(`task:${taskId}`, fn, LOCK);
  }

  private async updateShard(id: string, entry: IndexEntry | null): Promise<void> {
    const key = `index:${shardOf(id)}`;
    await this.store.coordinator.withLock(`tasks-${key}`, async () => {
      const shard = ((await this.ns.get(key)) as ShardValue | undefined) ?? {};
      if (entry) shard[id] = [entry.due, entry.cron];
      else delete shard[id];
      await this.ns.set(key, shard);
    }, LOCK);
  }

  private async addToCreator(task: TaskRecord): Promise<void> {
    const key = creatorKey(task.creator);
    await this.store.coordinator.withLock(`tasks-${key}`, async () => {
      const ids = ((await this.ns.get(key)) as string[] | undefined) ?? [];
      await this.ns.set(key, [...ids, task.id]);
    }, LOCK);
  }

  /**
   * Writes a new revision after the caller's index write. Callers that come while a write waits to start share
   * it (a burst of 1,000 runs writes a handful of revisions, not 1,000); it starts after any write in flight.
   */
  private bumpRevision(): Promise<void> {
    this.revisionQueued ??= this.revisionInFlight
      .catch(() => undefined)
      .then(() => {
        this.revisionQueued = null;
        this.revisionInFlight = this.ns.set("revision", randomUUID());
        return this.revisionInFlight;
      });
    return this.revisionQueued;
  }
}

function creatorKey(creator: Pick<TaskCreator, "channel" | "userId">): string {
  return `creator:${creator.channel}:${creator.userId}`;
}

/** FNV-1a: spreads ids evenly and is the same in every process. */
function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SHARDS;
}
