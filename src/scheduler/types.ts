/**
 * The scheduler's data: a task (what to send, when, to whom) and the record of each of its runs. Both are stored
 * as plain JSON in the store's "tasks" namespace, so every time is a number of milliseconds since the epoch.
 */
import type { ChannelName, ChatType, OutboundTarget } from "../core/types.js";
import type { ToolPermissions } from "../core/tools.js";

/** A reminder is sent as written; an agent task is a prompt the agent runs, whose answer is sent. */
export type TaskKind = "reminder" | "agent_task";

/** When a task runs. Every time is resolved by the gateway before it is stored, never by the model. */
export type Trigger =
  | { type: "once"; at: number }
  | { type: "interval"; everyMs: number; startAt: number }
  | { type: "cron"; expression: string; timezone: string };

/** active and paused tasks are live (in the index); the others are finished and kept for a while. */
export type TaskStatus = "active" | "paused" | "done" | "cancelled" | "missed" | "failed";

export const LIVE_STATUSES: readonly TaskStatus[] = ["active", "paused"];

export interface TaskCreator {
  channel: ChannelName;
  userId: string;
  name?: string;
  /** The language their platform reported when they created it; what they chose with /language comes first. */
  locale?: string;
}

export interface TaskRecord {
  /** Short and typeable: /cancel k3m9x2ab. */
  id: string;
  name: string;
  kind: TaskKind;
  /** The reminder's text, or the agent task's prompt. */
  text: string;
  trigger: Trigger;
  /** The zone times are shown in (and cron runs in): the creator's, else the chat's, else the default. */
  timezone: string;
  /** Where runs deliver: the chat the task was created in. */
  target: OutboundTarget;
  chatType: ChatType;
  creator: TaskCreator;
  /** The agent the task was created under (an id of `agents`); its runs are that agent's turns. Absent: default. */
  agent?: string;
  /** What the creator could use when they created it; an agent task's runs never get more. */
  permissions?: ToolPermissions;
  until: number | null;
  maxRuns: number | null;
  /** Deliver only the content: no header, no notices about late, failed or paused runs. */
  silent: boolean;
  /** Whether an agent task's own runs may create, change or trigger tasks (off: no reminder loops). */
  allowScheduling: boolean;
  status: TaskStatus;
  /** The next slot to run, null when none is left (or the task is paused). */
  nextRunAt: number | null;
  runCount: number;
  consecutiveFailures: number;
  lastRunAt: number | null;
  /** The latest runs, oldest first (config.runsKept of them): kept with the task, so a run is one write. */
  runs: RunRecord[];
  createdAt: number;
  updatedAt: number;
}

export type RunReason = "scheduled" | "manual";

/** skipped: the run's answer went out, but a tool it needed was not approved in time (its error says which). */
export type RunStatus = "delivered" | "failed" | "missed" | "interrupted" | "skipped";

export interface RunReceipt {
  messageId: string;
  sentAt: number;
}

export interface RunRecord {
  taskId: string;
  /** The slot this run is for (for a manual run, when it was asked for). */
  scheduledFor: number;
  reason: RunReason;
  status: RunStatus;
  /** null for an interrupted run: it started in a process that died. */
  startedAt: number | null;
  finishedAt: number | null;
  /** How late the run started, in ms after its slot. */
  lateMs: number;
  attempts: number;
  receipts: RunReceipt[];
  error: string | null;
}

/** Who asks to see or change tasks: a chat user, or the operator (the CLI, the admin API) who sees everything. */
export type Actor = { kind: "user"; channel: ChannelName; userId: string; isOwner: boolean } | { kind: "operator" };

/** What the index knows of a live task. */
export interface IndexEntry {
  /** The next run; null while paused. */
  due: number | null;
  /** "zone expression" of a cron task, so a changed schedule is noticed; null for the others. */
  cron: string | null;
}

/** An index entry with whose task it is (creatorOf), for the per-user listing and cap. */
export interface LiveEntry extends IndexEntry {
  creator: string;
}

/** "channel:userId": the index's name for a task's creator. */
export const creatorOf = (creator: Pick<TaskCreator, "channel" | "userId">): string => `${creator.channel}:${creator.userId}`;
