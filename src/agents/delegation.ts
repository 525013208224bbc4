/**
 * delegate_task's engine: runs a sub-turn with a helper agent (by default the caller's own) in a child session of
 * the conversation, with its own short history, for the same sender and with the same permissions (the helper's
 * tools narrow them further), bounded in depth, steps and tokens. A turn's helpers run up to
 * agents.maxParallelDelegations at a time; each shows what it does in the live reply's status line.
 */
import { DEFAULT_AGENT_ID, type AgentDirectory, type AgentProfile } from "../core/agents.js";
import type { ToolContext } from "../core/tools.js";
import type { DelegatedTurn, TurnEvent, TurnRunner } from "../core/turn.js";
import type { InboundMessage } from "../core/types.js";

export interface DelegationLimits {
  maxSteps: number;
  maxTokens: number;
  historyTokenBudget: number;
}

export interface DelegationDeps {
  turns: TurnRunner;
  agents: AgentDirectory;
  limits: DelegationLimits;
}

export interface DelegationRequest {
  agent?: string | undefined;
  task: string;
  context?: string | undefined;
}

export interface DelegationResult {
  agent: string;
  answer: string;
  steps: number;
  toolCalls: string[];
  /** The helper stopped at its step or token bound before it finished. */
  unfinished: boolean;
}

export type DelegationErrorCode = "invalid" | "denied" | "failed";

/** Why a delegation did not run or did not finish, in words the calling model can act on. */
export class DelegationError extends Error {
  override name = "DelegationError";
  constructor(
    message: string,
    readonly code: DelegationErrorCode,
  ) {
    super(message);
  }
}

const STATUS_TASK_CHARS = 60;

export class Delegation {
  /** The helpers' slots of each running turn, by its trace id. */
  private readonly turns = new Map<string, Slots>();

  constructor(private readonly deps: DelegationDeps) {}

  async delegate(request: DelegationRequest, ctx: ToolContext): Promise<DelegationResult> {
    const caller = ctx.agent ?? this.deps.agents.profile(DEFAULT_AGENT_ID);
    const depth = (ctx.delegationDepth ?? 0) + 1;
    const allowed = caller?.maxDelegationDepth ?? 1;
    if (depth > allowed) {
      throw new DelegationError(
        `A helper cannot be started here: this turn is ${depth - 1} level(s) below the person's, and the agent "${caller?.id ?? DEFAULT_AGENT_ID}" allows ${allowed}. Do the task yourself.`,
        "denied",
      );
    }
    const helper = this.helperFor(request.agent, caller);
    const message = ctx.message;
    if (!message) throw new DelegationError("delegate_task runs only inside a conversation's turn.", "denied");
    const slots = this.slotsOf(ctx.traceId);
    const slot = await slots.take(ctx.signal);
    try {
      return await this.run(helper, request, ctx, { message, depth, slot, slots });
    } finally {
      slots.give(slot);
      if (slots.idle()) this.turns.delete(ctx.traceId);
    }
  }

  private async run(
    helper: AgentProfile,
    request: DelegationRequest,
    ctx: ToolContext,
    at: { message: InboundMessage; depth: number; slot: number; slots: Slots },
  ): Promise<DelegationResult> {
    const label = helper.name ?? helper.id;
    // One status line for all of the turn's helpers, each with what it does now.
    const show = (text: string): void => ctx.showStatus?.(at.slots.status(at.slot, `${label}: ${text}`));
    show(`working on "${clip(request.task)}"`);
    const { limits } = this.deps;
    const delegation: DelegatedTurn = { depth: at.depth, ...limits };
    const result = await this.deps.turns.runTurn({
      // One child session per helper and slot of the conversation: its own history, kept short.
      sessionKey: `${ctx.sessionKey}:helper:${helper.id}:${at.slot}`,
      message: taskMessage(at.message, request, at),
      workspaceDir: ctx.workspaceDir,
      signal: ctx.signal,
      log: ctx.log.child({ helper: helper.id, depth: at.depth }),
      traceId: `${ctx.traceId}-${at.depth}.${at.slot}`,
      ...(ctx.permissions ? { permissions: ctx.permissions } : {}),
      // Approvals hold in the helper's turn as in the parent's: the same taint, asked in the same place.
      ...(ctx.taint ? { taint: ctx.taint } : {}),
      ...(ctx.approval ? { approval: ctx.approval } : {}),
      // What the person sees of it (its status line, an approval request) is in their language.
      ...(ctx.speech ? { speech: ctx.speech } : {}),
      agentId: helper.id,
      delegation,
      ...(ctx.showStatus ? { onEvent: (event: TurnEvent) => event.type === "status" && show(event.text) } : {}),
    });
    show("done");
    if (result.errorId) throw new DelegationError(`The helper "${helper.id}" failed (error id ${result.errorId}): ${result.text}`, "failed");
    return { agent: helper.id, answer: result.text, steps: result.steps, toolCalls: result.toolCalls, unfinished: result.stepLimit === true };
  }

  private helperFor(id: string | undefined, caller: AgentProfile | undefined): AgentProfile {
    const wanted = id ?? caller?.id ?? DEFAULT_AGENT_ID;
    const helper = this.deps.agents.profile(wanted);
    if (helper) return helper;
    throw new DelegationError(`There is no agent "${wanted}". Leave "agent" out to hand the task to a helper like yourself.`, "invalid");
  }

  private slotsOf(traceId: string): Slots {
    let slots = this.turns.get(traceId);
    if (!slots) this.turns.set(traceId, (slots = new Slots(this.deps.agents.maxParallelDelegations)));
    return slots;
  }
}

/** The helper's user message: the task (and the context the caller gave) from the same sender, in the same chat. */
function taskMessage(parent: InboundMessage, request: DelegationRequest, at: { depth: number; slot: number }): InboundMessage {
  const context = request.context?.trim();
  const { replyTo: _replyTo, ...rest } = parent;
  return {
    ...rest,
    id: `${parent.id}:helper:${at.depth}.${at.slot}`,
    text: context ? `${request.task}\n\nContext:\n${context}` : request.task,
    attachments: [],
  };
}

function clip(text: string): string {
  return text.length > STATUS_TASK_CHARS ? `${text.slice(0, STATUS_TASK_CHARS - 1)}…` : text;
}

/** Numbered places, taken in order of asking: a helper's slot also names its child session and its status. */
class Slots {
  private readonly free: number[];
  private readonly statuses = new Map<number, string>();
  private readonly waiting: Array<(slot: number) => void> = [];

  constructor(private readonly size: number) {
    this.free = Array.from({ length: size }, (_, i) => i);
  }

  take(signal: AbortSignal): Promise<number> {
    const slot = this.free.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new DelegationError("The turn was cancelled before the helper started.", "failed"));
      };
      const waiter = (given: number): void => {
        signal.removeEventListener("abort", onAbort);
        resolve(given);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Sets the status of `slot`; returns the line of every helper's status. */
  status(slot: number, text: string): string {
    this.statuses.set(slot, text);
    return [...this.statuses.values()].join(" · ");
  }

  give(slot: number): void {
    this.statuses.delete(slot);
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }

  idle(): boolean {
    return this.free.length === this.size;
  }
}
