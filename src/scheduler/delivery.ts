/**
 * What a run sends, through the channel of the chat the task belongs to: a reminder's text as written, or the
 * answer of an agent turn run in the task's own session (task:<id>). Sends go through the outbound port, which
 * owns retries (the scheduler adds none of its own); every sent message is returned as a receipt. Nothing sent here comes back in as a user message: it goes out through the
 * channel like any reply, and channels never hand the bot's own messages to the router.
 */
import { randomBytes } from "node:crypto";
import type { TurnRunner } from "../core/turn.js";
import type { Speech } from "../core/i18n.js";
import type { Outbound } from "../core/outbound.js";
import { SendError } from "../core/send-error.js";
import type { InboundMessage } from "../core/types.js";
import type { ToolDefinition } from "../core/tools.js";
import type { Logger } from "../infra/log.js";
import type { Clock } from "../core/clock.js";
import { spokenDuration } from "./spoken.js";
import type { RunReceipt, TaskCreator, TaskRecord } from "./types.js";

/** Tools that create, change or fire tasks: an agent task's run gets them only when the task allows it. */
export const SCHEDULING_TOOLS: ReadonlySet<string> = new Set(["schedule_task", "update_scheduled_task", "trigger_scheduled_task"]);

/** Runs later than this say so in what they send. */
export const LATE_NOTE_AFTER_MS = 60_000;

export interface DeliveryDeps {
  outbound: Outbound;
  agent: TurnRunner | null;
  workspaceOf: (sessionKey: string) => string;
  clock: Clock;
  log: Logger;
  /** The language of a task's creator: what the run's notes, notices and agent turn are worded in. */
  speechOf: (creator: TaskCreator) => Promise<Speech>;
}

/** A run that could not deliver; `attempts` says how many sends were tried. */
export class DeliveryError extends Error {
  override name = "DeliveryError";
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
  }
}

export interface Delivered {
  receipts: RunReceipt[];
  attempts: number;
  /** Why the run counts as skipped: a tool's approval timed out (its answer, saying so, was sent). */
  skipped?: string;
}

export class Delivery {
  constructor(private readonly deps: DeliveryDeps) {}

  /** Sends the run of `task` for `slot`. Throws a DeliveryError when it could not. */
  async run(task: TaskRecord, slot: number, lateMs: number, signal: AbortSignal): Promise<Delivered> {
    const speech = await this.deps.speechOf(task.creator);
    const answer = task.kind === "reminder" ? { text: task.text } : await this.agentAnswer(task, slot, speech, signal);
    const header = task.kind === "agent_task" && !task.silent ? `⏰ ${task.name}\n\n` : "";
    const late = lateMs > LATE_NOTE_AFTER_MS ? `\n\n${lateNote(slot, lateMs, task.timezone, speech)}` : "";
    const delivered = await this.send(task, `${header}${answer.text}${late}`, signal);
    return answer.skipped !== undefined ? { ...delivered, skipped: answer.skipped } : delivered;
  }

  /** A notice to the task's chat (paused, missed), in its creator's words; silent tasks get none. */
  async notify(task: TaskRecord, words: (speech: Speech) => string, signal: AbortSignal): Promise<Delivered | null> {
    if (task.silent) return null;
    return this.send(task, words(await this.deps.speechOf(task.creator)), signal);
  }

  /** One delivery through the outbound service (its retries included); a failure is logged by the runner. */
  private async send(task: TaskRecord, text: string, _signal: AbortSignal): Promise<Delivered> {
    try {
      const sent = await this.deps.outbound.sendTextCounted(task.target, text, { context: { taskId: task.id } });
      return { receipts: sent.messages.map((m) => ({ messageId: m.messageId, sentAt: m.sentAt.getTime() })), attempts: sent.attempts };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const attempts = err instanceof SendError ? err.attempts : 1;
      throw new DeliveryError(`sending to ${task.target.channel} chat ${task.target.chatId} failed: ${reason}`, attempts);
    }
  }

  /**
   * Runs the task's prompt as a turn of its own session; its tools are the creator's, minus scheduling. Approvals
   * are asked of the creator in a direct message; one that times out makes the run skipped.
   */
  private async agentAnswer(task: TaskRecord, slot: number, speech: Speech, signal: AbortSignal): Promise<{ text: string; skipped?: string }> {
    const { agent } = this.deps;
    if (!agent) throw new DeliveryError("no language model is configured, so agent tasks cannot run", 0);
    const sessionKey = `task:${task.id}`;
    const workspaceDir = this.deps.workspaceOf(sessionKey);
    const traceId = randomBytes(6).toString("hex");
    const timedOut: string[] = [];
    const result = await agent.runTurn({
      sessionKey,
      message: taskMessage(task, slot, this.deps.clock.now()),
      workspaceDir,
      signal,
      log: this.deps.log.child({ taskId: task.id, traceId, sessionKey }),
      traceId,
      work: "task",
      speech,
      allowTool: (tool: ToolDefinition) => task.allowScheduling || !SCHEDULING_TOOLS.has(tool.name),
      ...(task.agent !== undefined ? { agentId: task.agent } : {}),
      ...(task.permissions ? { permissions: task.permissions } : {}),
      approval: { direct: true, onTimeout: (reason) => timedOut.push(reason) },
    });
    if (result.errorId) throw new DeliveryError(`the agent turn failed (error id ${result.errorId})`, 0);
    return timedOut.length > 0 ? { text: result.text, skipped: `approval ${timedOut.join("; ")}` } : { text: result.text };
  }
}

/** The prompt as the creator's message in the task's chat: the model sees who asked for it and where. */
function taskMessage(task: TaskRecord, slot: number, now: number): InboundMessage {
  const { target, creator } = task;
  return {
    id: `task:${task.id}:${slot}`,
    platformMessageId: `task:${task.id}:${slot}`,
    channel: target.channel,
    chat: { id: target.chatId, type: task.chatType, ...(target.threadId !== undefined ? { threadId: target.threadId } : {}) },
    sender: { id: creator.userId, ...(creator.name !== undefined ? { name: creator.name } : {}) },
    text: task.text,
    attachments: [],
    mentionsBot: true,
    receivedAt: new Date(now),
  };
}

function lateNote(slot: number, lateMs: number, zone: string, speech: Speech): string {
  return speech.t("schedules.lateNote", { when: speech.time(slot, zone), late: spokenDuration(lateMs, speech.t) });
}
