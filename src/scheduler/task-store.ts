/**
 * Tasks in the store. A namespace has no listing, so live tasks are also entered in an index split over 256
 * shard keys (id -> next due time), which is all a scheduler reads at start; the task record itself is read
 * when it is due. Each user's live task ids are kept under their own key, for /tasks and the per-user cap.
 * Every index change also writes a new `revision`, which tells other replicas (and a running gateway, the CLI)
 * to look again.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Namespace, Store } from "../store/types.js";
import { LIVE_STATUSES, type RunRecord, type TaskCreator, type TaskRecord } from "./types.js";

const SHARDS = 256;
/** No 0/o, 1/i/l: ids are read off a phone and typed back. */
const ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
const ID_LENGTH = 8;
const LOCK = { leaseMs: 30_000, waitMs: 60_000 };

/** What the index knows of a live task. */
export interface IndexEntry {
  due: number | null;
  cron: boolean;
  /** The record's updatedAt, so a changed task is noticed. */
  rev: number;
}

type ShardValue = Record<string, [due: number | null, cron: 0 | 1, rev: number]>;

export interface TaskStoreOptions {
  /** How long finished tasks and their runs are kept. */
  keepFinishedMs: number;
  runsKept: number;
}

export function isLive(task: Pick<TaskRecord, "status">): boolean {
  return LIVE_STATUSES.includes(task.status);
}

export function ownerKey(creator: Pick<TaskCreator, "channel" | "userId">): string {
  return `${creator.channel}:${creator.userId}`;
}

export class TaskStore {
  private readonly ns: Namespace<unknown>;

  constructor(
    private readonly store: Store,
    private readonly opts: TaskStoreOptions,
  ) {
    this.ns = store.namespace<unknown>("tasks");
  }

  async newId(): Promise<string> {
    for (;;) {
      const bytes = randomBytes(ID_LENGTH);
      const id = [...bytes].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
      if ((await this.get(id)) === undefined) return id;
    }
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    return (await this.ns.get(`task:${id}`)) as TaskRecord | undefined;
  }

  /** Writes the task and keeps the index and its creator's list in step with its status. */
  async save(task: TaskRecord, previous: TaskRecord | undefined): Promise<void> {
    const live = isLive(task);
    await this.ns.set(`task:${task.id}`, task, live ? undefined : this.opts.keepFinishedMs);
    const entry = live ? indexEntryOf(task) : null;
    const wasIndexed = previous !== undefined && isLive(previous);
    if (entry === null && !wasIndexed) return;
    if (entry !== null && wasIndexed && sameEntry(entry, indexEntryOf(previous))) return;
    await this.updateShard(task.id, entry);
    if (live !== wasIndexed) await this.updateOwnerList(task.creator, task.id, live);
    await this.ns.set("revision", randomUUID());
  }

  /** Every live task's index entry, read shard by shard. */
  async loadIndex(): Promise<Map<string, IndexEntry>> {
    const entries = new Map<string, IndexEntry>();
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, (_, i) => this.ns.get(`index:${i}`) as Promise<ShardValue | undefined>),
    );
    for (const shard of shards) {
      for (const [id, [due, cron, rev]] of Object.entries(shard ?? {})) entries.set(id, { due, cron: cron === 1, rev });
    }
    return entries;
  }

  /** The ids of the live tasks `creator` made. */
  async liveIdsOf(creator: Pick<TaskCreator, "channel" | "userId">): Promise<string[]> {
    return ((await this.ns.get(`owner:${ownerKey(creator)}`)) as string[] | undefined) ?? [];
  }

  /** Changes whenever a live task is added, changed or removed; undefined before the first task. */
  async revision(): Promise<string | undefined> {
    return (await this.ns.get("revision")) as string | undefined;
  }

  /** The task's recorded runs, oldest first. */
  async runs(taskId: string): Promise<RunRecord[]> {
    return ((await this.ns.get(`runs:${taskId}`)) as RunRecord[] | undefined) ?? [];
  }

  /** Adds the run, or replaces the record of the same run; keeps the last `runsKept`. Caller holds the task lock. */
  async putRun(run: RunRecord, taskLive: boolean): Promise<void> {
    const runs = await this.runs(run.taskId);
    const same = runs.findIndex((r) => r.reason === run.reason && r.scheduledFor === run.scheduledFor);
    if (same >= 0) runs[same] = run;
    else runs.push(run);
    await this.ns.set(`runs:${run.taskId}`, runs.slice(-this.opts.runsKept), taskLive ? undefined : this.opts.keepFinishedMs);
  }

  /** Holds the task's lock across replicas: every change to a task and every run of it happens under it. */
  withTaskLock<T>(taskId: string, fn: () => Promise<T>, waitMs = LOCK.waitMs): Promise<T> {
    return this.store.coordinator.withLock(`task:${taskId}`, fn, { leaseMs: LOCK.leaseMs, waitMs });
  }

  private async updateShard(id: string, entry: IndexEntry | null): Promise<void> {
    const key = `index:${shardOf(id)}`;
    await this.store.coordinator.withLock(`tasks-${key}`, async () => {
      const shard = ((await this.ns.get(key)) as ShardValue | undefined) ?? {};
      if (entry) shard[id] = [entry.due, entry.cron ? 1 : 0, entry.rev];
      else delete shard[id];
      await this.ns.set(key, shard);
    }, LOCK);
  }

  private async updateOwnerList(creator: TaskCreator, id: string, add: boolean): Promise<void> {
    const key = `owner:${ownerKey(creator)}`;
    await this.store.coordinator.withLock(`tasks-${key}`, async () => {
      const ids = ((await this.ns.get(key)) as string[] | undefined) ?? [];
      const next = add ? [...new Set([...ids, id])] : ids.filter((other) => other !== id);
      await this.ns.set(key, next);
    }, LOCK);
  }
}

export function indexEntryOf(task: TaskRecord): IndexEntry {
  return { due: task.status === "active" ? task.nextRunAt : null, cron: task.trigger.type === "cron", rev: task.updatedAt };
}

function sameEntry(a: IndexEntry, b: IndexEntry): boolean {
  return a.due === b.due && a.cron === b.cron && a.rev === b.rev;
}

/** FNV-1a: spreads ids evenly and is the same in every process. */
function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SHARDS;
}
