/**
 * Tool definitions and the context a tool runs in. Each handler file (filesystem.ts, system.ts, ...) exports
 * its tool definitions next to the code that runs them, and registers both with the HandlerRegistry.
 */
import type { z } from "zod";
import type { Logger } from "pino";
import type { ChannelName, ChatType, InboundMessage } from "./types.js";
import { messageTaintSources, TurnTaint, type ApprovalNote, type ApprovalRoute } from "./approval-context.js";
import type { AgentProfile } from "./agents.js";
import type { Speech } from "./i18n.js";

/** What a tool can do, from harmless to dangerous; the access policy grants classes to roles. */
export const RISK_CLASSES = ["read", "chat", "web", "workspace", "exec", "admin"] as const;
export type RiskClass = (typeof RISK_CLASSES)[number];

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  /** snake_case, unique across the registry. */
  name: string;
  /** Groups the level-1 catalog, e.g. "File System", "System". */
  category: string;
  /** 30-80 characters, shown in the system prompt catalog. */
  shortDescription: string;
  /** When to use it, caveats and an example; returned by get_tool_info. */
  description: string;
  /** Validated before the handler runs; its JSON Schema is what the model sees. */
  input: S;
  risk: RiskClass;
  /** Overrides the registry's default per-tool timeout. */
  timeoutMs?: number;
  /** The class of one call when it depends on the input (an MCP server's own class); default `risk`. */
  riskOf?: (input: z.output<S>) => RiskClass;
  /**
   * The third-party content a successful call takes into the turn ("a web page"), which taints it (approvals ask
   * after that); a function decides per call (a file the turn wrote itself is not third-party).
   */
  takesIn?: string | ((input: z.output<S>, ctx: ToolContext) => string | undefined);
}

/** Everything a tool may know about the turn that called it. */
export interface ToolContext {
  sessionKey: string;
  channel: ChannelName;
  chatId: string;
  chatType: ChatType;
  senderId: string;
  /** The message that started the turn; absent for scheduled runs. */
  message?: InboundMessage;
  /** The session's private directory: the only place file tools may touch. */
  workspaceDir: string;
  signal: AbortSignal;
  log: Logger;
  traceId: string;
  /** Tools whose full definition this session has seen (get_tool_info, get_skill_info, an invalid call's error). */
  disclosedTools: Set<string>;
  /**
   * What the access policy lets the sender use here; the registry refuses calls outside it. Absent only for
   * callers that are trusted as a whole (the CLI, tests); every chat turn carries it.
   */
  permissions?: ToolPermissions;
  /** The third-party content the turn took in so far; absent for trusted callers (the CLI, tests). */
  taint?: TurnTaint;
  /** Where approvals are asked when not in this chat from this sender (a scheduled run: the creator's DM). */
  approval?: ApprovalRoute;
  /** The agent whose turn called the tool; absent outside a turn (the CLI, tests): the default agent. */
  agent?: AgentProfile;
  /** How many helper turns deep the calling turn is (0 or absent: a person's own turn). */
  delegationDepth?: number;
  /** Shows a line in the live reply's status while the tool works (a helper's progress); absent when nobody watches. */
  showStatus?: (text: string) => void;
  /** The language of the person the turn answers, for what a tool shows them (an approval request); English when absent. */
  speech?: Speech;
  /** Adds a line for the person after the turn's reply, as the turn does with a budget warning; absent outside a turn. */
  addNotice?: (text: string) => void;
}

/** What a context for the chat a message came from is made of. */
export interface MessageTurn {
  sessionKey: string;
  message: InboundMessage;
  workspaceDir: string;
  signal: AbortSignal;
  traceId: string;
  permissions?: ToolPermissions | undefined;
  /** Other people's group messages the turn was given as context: they taint it. */
  earlierMessages?: readonly unknown[] | undefined;
  approval?: ApprovalRoute | undefined;
  /** A delegated turn shares its parent's: what either took in taints both. */
  taint?: TurnTaint | undefined;
  speech?: Speech | undefined;
}

/** The tool context of a turn answering `turn.message`: its chat, sender, workspace and permissions. */
export function messageToolContext(turn: MessageTurn, log: Logger, disclosedTools = new Set<string>()): ToolContext {
  const { message } = turn;
  return {
    sessionKey: turn.sessionKey,
    channel: message.channel,
    chatId: message.chat.id,
    chatType: message.chat.type,
    senderId: message.sender.id,
    message,
    workspaceDir: turn.workspaceDir,
    signal: turn.signal,
    log,
    traceId: turn.traceId,
    disclosedTools,
    ...(turn.permissions ? { permissions: turn.permissions } : {}),
    taint: turn.taint ?? turnTaintOf(turn),
    ...(turn.approval ? { approval: turn.approval } : {}),
    ...(turn.speech ? { speech: turn.speech } : {}),
  };
}

function turnTaintOf(turn: MessageTurn): TurnTaint {
  const taint = new TurnTaint();
  for (const source of messageTaintSources(turn.message, turn.earlierMessages?.length ?? 0)) taint.mark(source);
  return taint;
}

/** The risk classes granted to the sender of a turn (src/access decides them from role and chat type). */
export interface ToolPermissions {
  /** Who the sender is here, as refusals name them: "a guest in a group chat". */
  holder: string;
  classes: readonly RiskClass[];
}

/** Whether `permissions` cover `risk`; no permissions means a trusted caller. */
export function permits(permissions: ToolPermissions | undefined, risk: RiskClass): boolean {
  return !permissions || permissions.classes.includes(risk);
}

/** Why `action` (needing `risk`) is refused under `permissions`; undefined when it is allowed. */
export function permissionRefusal(action: string, risk: RiskClass, permissions: ToolPermissions | undefined): string | undefined {
  if (!permissions || permits(permissions, risk)) return undefined;
  const granted = permissions.classes.length > 0 ? permissions.classes.join(", ") : "nothing";
  return (
    `${action} needs the "${risk}" permission, which ${permissions.holder} does not have (granted: ${granted}). ` +
    "Tell the user this is not allowed for them here; do not try to get around it with other tools."
  );
}

/**
 * For a call that needs more than its tool's own class, e.g. a cross-chat target or another user's task needs
 * "admin": throws a ToolError "denied" naming the missing permission.
 */
export function requirePermission(ctx: ToolContext, risk: RiskClass, action: string): void {
  const refusal = permissionRefusal(action, risk, ctx.permissions);
  if (refusal) throw new ToolError(refusal, "denied");
}

export type ToolErrorCode = "unknown_tool" | "invalid_input" | "denied" | "timeout" | "aborted" | "failed";

export type ToolOutcome =
  | { ok: true; tool: string; output: unknown; approval?: ApprovalNote }
  | { ok: false; tool: string; code: ToolErrorCode; error: string; approval?: ApprovalNote };

/** A tool's failure, thrown by a handler when the model can act on the reason (bad path, missing file...). */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly code: ToolErrorCode = "failed",
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/** One tool's definition with the function that runs it; `run` receives the schema's parsed output. */
export interface ToolImplementation<S extends z.ZodType = z.ZodType> {
  definition: ToolDefinition<S>;
  // Method syntax on purpose: it lets an implementation for a specific schema stand where any is expected.
  run(input: z.output<S>, ctx: ToolContext): Promise<unknown>;
}

/** Pairs a definition with its implementation, typing `input` from the definition's schema. */
export function implementTool<S extends z.ZodType>(
  definition: ToolDefinition<S>,
  run: (input: z.output<S>, ctx: ToolContext) => Promise<unknown>,
): ToolImplementation<S> {
  return { definition, run };
}

/** A part of a ToolMediaOutput. */
export type ToolMediaPart = { type: "text"; text: string } | { type: "image"; data: string; mediaType: string };

/** A tool output that carries images (base64): the agent gives it to the model as text and image parts. */
export interface ToolMediaOutput {
  kind: "tool-media";
  parts: ToolMediaPart[];
}

export function isToolMediaOutput(value: unknown): value is ToolMediaOutput {
  return value !== null && typeof value === "object" && (value as { kind?: unknown }).kind === "tool-media";
}

/** An engine's error that says what went wrong with a code of its own (a task, a memory). */
type CodedError<C extends string> = Error & { readonly code: C };

/** Runs `work`, turning an engine's refusal (an `errorClass` error) into a ToolError the model can act on. */
export async function withToolErrors<C extends string, T>(
  errorClass: abstract new (...args: never[]) => CodedError<C>,
  codes: Readonly<Record<C, ToolErrorCode>>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof errorClass) throw new ToolError(err.message, codes[err.code]);
    throw err;
  }
}

/** What every handler file's factory returns: the handler's name (seed 000's) and its tools. */
export interface ToolHandlerSpec {
  name: string;
  tools: readonly ToolImplementation[];
}
