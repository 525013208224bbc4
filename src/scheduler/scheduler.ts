/**
 * The scheduler as the rest of the gateway sees it: create, change, cancel, run and list tasks on behalf of an
 * actor, with the access rules (access.ts) and the per-user cap applied here, once, for the tools, the slash
 * commands, the CLI and the admin API alike.
 */
import type { TurnRunner } from "../core/turn.js";
import type { Outbound } from "../core/outbound.js";
import type { ChatType, OutboundTarget } from "../core/types.js";
import type { ToolPermissions } from "../core/tools.js";
import type { Speech } from "../core/i18n.js";
import { ENGLISH } from "../infra/i18n/index.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import { canManage, hasTaskCap } from "./access.js";
import type { SchedulerConfig } from "./config.js";
import { Delivery } from "./delivery.js";
import { SchedulerEngine } from "./engine.js";
import { isLive, TaskStore } from "./task-store.js";
import type { SpokenRefusal } from "./spoken.js";
import { nextRunAfter } from "./triggers.js";
import { systemClock, type Clock } from "../core/clock.js";
import type { Actor, RunRecord, TaskCreator, TaskKind, TaskRecord, Trigger } from "./types.js";
import type { When } from "./when-schema.js";
import { resolveUntil, resolveWhen, WhenError, type WhenContext } from "./when.js";
import type { ZonePreferences} from "./zone-preferences.js";
import { type ResolvedZone } from "./zone-preferences.js";

export type TaskErrorCode = "not_found" | "denied" | "invalid" | "limit";

/** A request the scheduler refuses, with a message for the user (or the model) that says what to do. */
export class TaskError extends Error {
  override name = "TaskError";
  constructor(
    message: string,
    readonly code: TaskErrorCode,
    /** The refusal in a person's words, where it differs from the model's; the message otherwise. */
    readonly spoken?: SpokenRefusal,
  ) {
    super(message);
  }
}

export interface NewTask {
  name: string;
  kind: TaskKind;
  text: string;
  when: When;
  until?: string | undefined;
  maxRuns?: number | undefined;
  silent?: boolean | undefined;
  allowScheduling?: boolean | undefined;
  target: OutboundTarget;
  chatType: ChatType;
  creator: TaskCreator;
  /** The agent it is created under; absent: the default agent. */
  agent?: string | undefined;
  permissions?: ToolPermissions | undefined;
}

export interface TaskChange {
  name?: string | undefined;
  text?: string | undefined;
  when?: When | undefined;
  /** null removes the limit. */
  until?: string | null | undefined;
  maxRuns?: number | null | undefined;
  silent?: boolean | undefined;
  paused?: boolean | undefined;
}

export interface SchedulerDeps {
  config: SchedulerConfig;
  /** The zones people and chats set (agent.timezone for those that set none). */
  zones: ZonePreferences;
  store: Store;
  log: Logger;
  /** Every reminder goes out through here (the one retry policy). */
  outbound: Outbound;
  agent: TurnRunner | null;
  /** The workspace of an agent task's session. */
  workspaceOf: (sessionKey: string) => string;
  /** A task creator's language (their /language, else what their platform reported, else i18n.default); English when absent. */
  speechOf?: (creator: TaskCreator) => Promise<Speech>;
  clock?: Clock;
}

/** The shown part of a list: the most a list call returns. */
const LIST_LIMIT = 200;

export class Scheduler {
  readonly zones: ZonePreferences;
  readonly clock: Clock;
  private readonly tasks: TaskStore;
  private readonly engine: SchedulerEngine;

  constructor(private readonly deps: SchedulerDeps) {
    const { config, store, log } = deps;
    this.clock = deps.clock ?? systemClock;
    this.tasks = new TaskStore(store, config.keepFinishedDays * 86_400_000);
    this.zones = deps.zones;
    const schedulerLog = log.child({ component: "scheduler" });
    const delivery = new Delivery({
      outbound: deps.outbound,
      agent: deps.agent,
      workspaceOf: deps.workspaceOf,
      clock: this.clock,
      log: schedulerLog,
      speechOf: deps.speechOf ?? (() => Promise.resolve(ENGLISH)),
    });
    this.engine = new SchedulerEngine({ config, store, tasks: this.tasks, delivery, clock: this.clock, log: schedulerLog });
  }

  start(): Promise<void> {
    return this.engine.start();
  }

  stop(graceMs: number): Promise<void> {
    return this.engine.stop(graceMs);
  }

  /** Resolves when every run due so far has finished. */
  idle(): Promise<void> {
    return this.engine.idle();
  }

  /** Looks for tasks changed elsewhere now, instead of at the next sync interval. */
  sync(): Promise<void> {
    return this.engine.sync();
  }

  get armed(): { due: number; cron: number } {
    return this.engine.armed;
  }

  /** Resolves the times of `spec` in the creator's zone, stores the task and arms it. */
  async create(spec: NewTask, actor: Actor): Promise<{ task: TaskRecord; zone: ResolvedZone }> {
    const zone = await this.zoneOf(spec.target, spec.creator);
    const ctx = this.whenContext(zone.zone);
    const trigger = parseOrInvalid(() => resolveWhen(spec.when, ctx));
    const until = spec.until !== undefined ? parseOrInvalid(() => resolveUntil(spec.until!, trigger, ctx)) : null;
    if (hasTaskCap(actor)) {
      const cap = this.deps.config.maxActivePerUser;
      const live = await this.tasks.countLive(spec.creator);
      if (live >= cap) throw new TaskError(`You already have ${live} active tasks (the limit is ${cap}); cancel one first.`, "limit", { key: "limit", values: { live, cap } });
    }
    const now = ctx.now;
    const draft: TaskRecord = {
      id: this.tasks.newId(),
      name: spec.name,
      kind: spec.kind,
      text: spec.text,
      trigger,
      timezone: trigger.type === "cron" ? trigger.timezone : zone.zone,
      target: spec.target,
      chatType: spec.chatType,
      creator: spec.creator,
      ...(spec.agent !== undefined ? { agent: spec.agent } : {}),
      ...(spec.permissions ? { permissions: spec.permissions } : {}),
      until,
      maxRuns: spec.maxRuns ?? null,
      silent: spec.silent ?? false,
      allowScheduling: spec.allowScheduling ?? false,
      status: "active",
      nextRunAt: null,
      runCount: 0,
      consecutiveFailures: 0,
      lastRunAt: null,
      runs: [],
      createdAt: now,
      updatedAt: now,
    };
    const task = { ...draft, nextRunAt: firstRun(draft, now) };
    await this.tasks.save(task, undefined);
    this.engine.arm(task.id, task);
    this.deps.log.info({ taskId: task.id, kind: task.kind, trigger: task.trigger.type, chatId: task.target.chatId }, "task created");
    return { task, zone };
  }

  async update(id: string, actor: Actor, change: TaskChange): Promise<TaskRecord> {
    return this.tasks.withTaskLock(id, async () => {
      const task = await this.liveTask(id, actor);
      const now = this.clock.now();
      const zone = await this.zoneOf(task.target, task.creator);
      const ctx = this.whenContext(zone.zone);
      const trigger: Trigger = change.when ? parseOrInvalid(() => resolveWhen(change.when!, ctx)) : task.trigger;
      const until = change.until === undefined ? task.until : change.until === null ? null : parseOrInvalid(() => resolveUntil(change.until as string, trigger, ctx));
      const draft: TaskRecord = {
        ...task,
        name: change.name ?? task.name,
        text: change.text ?? task.text,
        silent: change.silent ?? task.silent,
        maxRuns: change.maxRuns === undefined ? task.maxRuns : change.maxRuns,
        trigger,
        until,
        timezone: change.when ? (trigger.type === "cron" ? trigger.timezone : zone.zone) : task.timezone,
        status: change.paused === undefined ? task.status : change.paused ? "paused" : "active",
        consecutiveFailures: change.paused === false ? 0 : task.consecutiveFailures,
        updatedAt: now,
      };
      const updated = { ...draft, nextRunAt: draft.status === "active" ? firstRun(draft, now) : null };
      await this.tasks.save(updated, task);
      this.engine.arm(id, updated);
      return updated;
    });
  }

  async cancel(id: string, actor: Actor): Promise<TaskRecord> {
    return this.tasks.withTaskLock(id, async () => {
      const task = await this.liveTask(id, actor);
      const cancelled: TaskRecord = { ...task, status: "cancelled", nextRunAt: null, updatedAt: this.clock.now() };
      await this.tasks.save(cancelled, task);
      this.engine.arm(id, cancelled);
      this.deps.log.info({ taskId: id }, "task cancelled");
      return cancelled;
    });
  }

  /** Runs a live task once now, besides its schedule; resolves with the run's record. */
  async trigger(id: string, actor: Actor): Promise<RunRecord> {
    await this.liveTask(id, actor);
    const run = await this.engine.runNow(id);
    if (!run) throw notFound(id);
    return run;
  }

  async get(id: string, actor: Actor): Promise<TaskRecord> {
    const task = await this.tasks.get(id.trim().toLowerCase());
    // Another user's task is reported as not found: its existence is theirs to know.
    if (!task || !canManage(actor, task)) throw notFound(id);
    return task;
  }

  /** The task's latest runs, newest first. */
  async runs(id: string, actor: Actor, limit: number): Promise<{ task: TaskRecord; runs: RunRecord[] }> {
    const task = await this.get(id, actor);
    return { task, runs: task.runs.slice(-limit).reverse() };
  }

  /**
   * Live tasks, soonest first: the actor's own; with `everyone`, all of them (only for the owner and the
   * operator; others still see their own).
   */
  async list(actor: Actor, opts: { everyone?: boolean } = {}): Promise<TaskRecord[]> {
    const everyone = opts.everyone === true && (actor.kind === "operator" || actor.isOwner);
    let tasks: TaskRecord[];
    if (everyone) {
      // The index knows every next run: only the soonest LIST_LIMIT records are read (paused ones last).
      const soonest = [...(await this.tasks.loadIndex())]
        .sort(([, a], [, b]) => (a.due ?? Infinity) - (b.due ?? Infinity))
        .slice(0, LIST_LIMIT);
      tasks = (await Promise.all(soonest.map(([id]) => this.tasks.get(id)))).filter((t): t is TaskRecord => t !== undefined && isLive(t));
    } else {
      tasks = actor.kind === "user" ? await this.tasks.liveTasksOf(actor) : [];
    }
    tasks.sort((a, b) => (a.nextRunAt ?? Infinity) - (b.nextRunAt ?? Infinity));
    return tasks.slice(0, LIST_LIMIT);
  }

  /**
   * Refuses when `sessionKey` is a scheduled run of a task that may not schedule: what a task does must not
   * create more tasks (a reminder loop) unless its creator allowed it.
   */
  async requireMaySchedule(sessionKey: string): Promise<void> {
    const match = /^task:(.+)$/.exec(sessionKey);
    if (!match) return;
    const task = await this.tasks.get(match[1]!);
    if (!task?.allowScheduling) {
      throw new TaskError("A scheduled task's own run may not create, change or trigger tasks (it was not allowed to).", "denied");
    }
  }

  private async liveTask(id: string, actor: Actor): Promise<TaskRecord> {
    const task = await this.get(id, actor);
    if (!isLive(task)) {
      throw new TaskError(`Task ${task.id} has already ended (${task.status}); schedule a new one instead.`, "invalid", {
        key: "ended",
        values: { id: task.id },
        words: { status: `schedules.status.${task.status}` },
      });
    }
    return task;
  }

  private zoneOf(target: OutboundTarget, creator: TaskCreator): Promise<ResolvedZone> {
    return this.zones.resolve({ channel: target.channel, chatId: target.chatId, userId: creator.userId });
  }

  private whenContext(zone: string): WhenContext {
    return { now: this.clock.now(), zone, minIntervalMs: this.deps.config.minIntervalSeconds * 1_000 };
  }
}

function firstRun(task: TaskRecord, now: number): number {
  const first = nextRunAfter(task, now);
  if (first === null) throw new TaskError("With these times the task would never run: check until and max_runs.", "invalid", { key: "never" });
  return first;
}

function parseOrInvalid<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof WhenError) throw new TaskError(err.message, "invalid", err.spoken);
    throw err;
  }
}

function notFound(id: string): TaskError {
  return new TaskError(`No task "${id}" of yours exists; list_scheduled_tasks (or /tasks) shows your tasks.`, "not_found", { key: "notFound", values: { id } });
}
