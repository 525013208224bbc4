/**
 * The handler registry: which handler runs which tool, and the one guarded way to run a tool.
 * executeByTool never throws and never hangs: every failure becomes a ToolOutcome the model can read.
 */
import type { z } from "zod";
import type { Logger } from "../infra/log.js";
import { toolCalls } from "../infra/metrics.js";
import { suggestToolNames } from "../core/names.js";
import type { ToolGate } from "../core/approvals.js";
import { agentOffers } from "../core/agents.js";
import {
  permissionRefusal,
  ToolError,
  type ToolContext,
  type ToolDefinition,
  type ToolHandlerSpec,
  type ToolImplementation,
  type ToolOutcome,
} from "../core/tools.js";

export const SHORT_DESCRIPTION_LENGTH = { min: 30, max: 80 } as const;
const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

interface RegisteredTool {
  handlerName: string;
  implementation: ToolImplementation;
}

export class HandlerRegistry {
  private readonly log: Logger;
  private readonly defaultTimeoutMs: number;
  private readonly tools = new Map<string, RegisteredTool>();
  /** Asked before every call runs (approvals); none: calls run once permitted and valid. */
  private gate: ToolGate | undefined;

  constructor(opts: { log: Logger; defaultTimeoutMs: number }) {
    this.log = opts.log;
    this.defaultTimeoutMs = opts.defaultTimeoutMs;
  }

  /** Registers all of the handler's tools or none: throws on a duplicate or malformed name, or a bad shortDescription. */
  register({ name: handlerName, tools: implementations }: ToolHandlerSpec): void {
    const seen = new Set<string>();
    for (const { definition: tool } of implementations) {
      const problem = definitionProblem(tool);
      if (problem) throw new Error(`Handler "${handlerName}": tool "${tool.name}" ${problem}`);
      const owner = this.tools.get(tool.name)?.handlerName ?? (seen.has(tool.name) ? handlerName : undefined);
      if (owner) throw new Error(`Handler "${handlerName}": tool "${tool.name}" is already registered by "${owner}"`);
      seen.add(tool.name);
    }
    for (const implementation of implementations) this.tools.set(implementation.definition.name, { handlerName, implementation });
    this.log.debug({ handler: handlerName, tools: [...seen] }, "tool handler registered");
  }

  /** The one gate every call passes before it runs; set once, by the approvals feature. */
  useGate(gate: ToolGate): void {
    if (this.gate) throw new Error("The handler registry already has a tool gate");
    this.gate = gate;
  }

  /** Removes a tool (a skill that was uninstalled); true when it was registered. */
  unregister(toolName: string): boolean {
    const removed = this.tools.delete(toolName);
    if (removed) this.log.debug({ tool: toolName }, "tool unregistered");
    return removed;
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  getTool(name: string): ToolDefinition | undefined {
    return this.tools.get(name)?.implementation.definition;
  }

  /** In registration order. */
  listTools(): ToolDefinition[] {
    return [...this.tools.values()].map((entry) => entry.implementation.definition);
  }

  handlerOf(toolName: string): string | undefined {
    return this.tools.get(toolName)?.handlerName;
  }

  async executeByTool(name: string, input: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const started = performance.now();
    const outcome = await this.execute(name, input, ctx);
    const durationMs = Math.round(performance.now() - started);
    const code = outcome.ok ? undefined : outcome.code;
    toolCalls.inc({ tool: this.tools.has(name) ? name : "unknown", outcome: code ?? "ok" });
    this.log.debug({ ...callFields(name, ctx), durationMs, ok: outcome.ok, code }, "tool call");
    return outcome;
  }

  private async execute(name: string, input: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const entry = this.tools.get(name);
    if (!entry) return failure(name, new ToolError(this.unknownToolMessage(name), "unknown_tool"));
    // Before the input check: a refused caller learns nothing about how to call the tool.
    const { definition } = entry.implementation;
    const refusal =
      permissionRefusal(`The tool ${name}`, definition.risk, ctx.permissions) ??
      (agentOffers(ctx.agent, name, entry.handlerName) ? undefined : `The tool ${name} is not among the tools of the agent "${ctx.agent?.id}".`);
    if (refusal) return this.refuse(name, ctx, new ToolError(refusal, "denied"));
    const parsed = definition.input.safeParse(input);
    if (!parsed.success) return failure(name, new ToolError(invalidInputMessage(name, parsed.error), "invalid_input"));
    if (ctx.signal.aborted) return failure(name, new ToolError(`${name} was cancelled before it started`, "aborted"));
    const verdict = this.gate ? await this.gate.admit({ tool: definition, input: parsed.data, ctx }) : { run: true as const };
    if (!verdict.run) return { ...failure(name, new ToolError(verdict.reason, verdict.code)), approval: verdict.note };
    const approval = verdict.note ? { approval: verdict.note } : {};

    const timeoutMs = definition.timeoutMs ?? this.defaultTimeoutMs;
    try {
      const output = await runGuarded(
        (signal) => entry.implementation.run(parsed.data, { ...ctx, signal, log: ctx.log.child({ tool: name }) }),
        ctx.signal,
        timeoutMs,
        name,
      );
      markTaint(definition, parsed.data, ctx);
      return { ok: true, tool: name, output, ...approval };
    } catch (err) {
      if (err instanceof ToolError) {
        if (err.code === "denied") return { ...this.refuse(name, ctx, err), ...approval };
        if (err.code === "timeout") this.log.warn({ ...callFields(name, ctx), timeoutMs }, "tool timed out");
        return { ...failure(name, err), ...approval };
      }
      this.log.error({ ...callFields(name, ctx), err }, "tool failed");
      return { ...failure(name, new ToolError(err instanceof Error ? err.message : String(err), "failed")), ...approval };
    }
  }

  /** The audit line of a refused call: who, where, and which permission was missing; never the input. */
  private refuse(name: string, ctx: ToolContext, err: ToolError): ToolOutcome {
    const where = { channel: ctx.channel, userId: ctx.senderId, chatId: ctx.chatId };
    this.log.info({ ...callFields(name, ctx), ...where, reason: err.message }, "tool call refused");
    return failure(name, err);
  }

  private unknownToolMessage(name: string): string {
    return noSuchToolMessage(name, suggestToolNames(name, [...this.tools.keys()]));
  }
}

/** The answer to a name that is no tool: the closest names, or where to find them. */
export function noSuchToolMessage(name: string, closest: readonly string[]): string {
  const hint = closest.length > 0 ? `Closest tools: ${closest.join(", ")}.` : "The tools you can use are listed with your tools.";
  return `No such tool "${name}". ${hint}`;
}

/** Why a definition cannot be registered, or undefined when it is fine. */
function definitionProblem(tool: ToolDefinition): string | undefined {
  if (!TOOL_NAME_PATTERN.test(tool.name)) return "must have a snake_case name";
  const length = tool.shortDescription.length;
  const { min, max } = SHORT_DESCRIPTION_LENGTH;
  if (length < min || length > max) return `has a shortDescription of ${length} characters; it must have ${min}-${max}`;
  return undefined;
}

/** A call that took in third-party content taints its turn (approvals ask from then on). */
function markTaint(definition: ToolDefinition, input: unknown, ctx: ToolContext): void {
  const { takesIn } = definition;
  const source = typeof takesIn === "function" ? takesIn(input, ctx) : takesIn;
  if (source) ctx.taint?.mark(source);
}

/** What every log line about a call carries, so it can be traced to its chat and turn. */
function callFields(tool: string, ctx: ToolContext): { tool: string; session: string; traceId: string } {
  return { tool, session: ctx.sessionKey, traceId: ctx.traceId };
}

function failure(tool: string, err: ToolError): ToolOutcome {
  return { ok: false, tool, code: err.code, error: err.message };
}

/** One line per problem, `path: message`, so the model can fix its call. */
function invalidInputMessage(tool: string, error: z.ZodError): string {
  const problems = error.issues.map((issue) => {
    const path = issue.path.map(String).join(".") || "(input)";
    return `- ${path}: ${issue.message}`;
  });
  return `Invalid input for ${tool}:\n${problems.join("\n")}`;
}

/**
 * Runs `work` until it settles, the deadline passes, or `parent` aborts, whichever comes first. On a deadline or
 * abort the signal handed to `work` is aborted too, so a well-behaved handler stops what it was doing.
 */
function runGuarded<T>(
  work: (signal: AbortSignal) => Promise<T>,
  parent: AbortSignal,
  timeoutMs: number,
  tool: string,
): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const stop = (reason: ToolError): void => {
      cleanup();
      controller.abort(reason);
      reject(reason);
    };
    const onAbort = (): void => stop(new ToolError(`${tool} was cancelled`, "aborted"));
    const onDeadline = (): void => stop(new ToolError(`${tool} timed out after ${timeoutMs} ms`, "timeout"));
    const timer = setTimeout(onDeadline, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      parent.removeEventListener("abort", onAbort);
    };
    parent.addEventListener("abort", onAbort, { once: true });
    // Wrapped so that a handler that throws synchronously is caught like one that rejects.
    Promise.resolve()
      .then(() => work(controller.signal))
      .then(
        (value) => {
          cleanup();
          resolve(value);
        },
        (err: unknown) => {
          cleanup();
          reject(err);
        },
      );
  });
}
