/**
 * The registry's tools as AI SDK tool sets, kept from turn to turn. Every tool the sender may use is in the set,
 * with its short description and compact schema, so a call to any of them runs in one step; which of them go to
 * the provider is exposure.ts's choice. Inputs are checked by the registry against the full schema; an invalid call
 * gets the error together with the tool's full definition.
 * A call to a name outside the set is answered here (see toolCallRepairer), not with the SDK's "unavailable tool".
 */
import { jsonSchema, NoSuchToolError, tool, type JSONSchema7, type JSONValue, type Tool, type ToolCallRepairFunction, type ToolSet } from "ai";
import { redactSecrets, redactText } from "../infra/config/secrets.js";
import { suggestToolNames } from "../core/names.js";
import type { ToolCatalog } from "../handlers/catalog.js";
import { noSuchToolMessage, type HandlerRegistry } from "../handlers/registry.js";
import { isToolMediaOutput, permissionRefusal, type ToolContext, type ToolDefinition, type ToolOutcome } from "../core/tools.js";
import type { ToolCallLog } from "../sessions/turn-log.js";
import type { Refusals } from "./refusal-words.js";

/** What a tool call needs of its turn: generateText hands it to every call as `experimental_context`. */
export interface TurnToolState {
  /** Shared by every call of the turn. */
  context: ToolContext;
  /** Every call of the turn is appended here, for the session's log. */
  calls: ToolCallLog[];
  /** The repairer's refusals, by tool call id: their words are what the model reads (refusal-words.ts). */
  refusals: Refusals;
}

export interface ToolCallRepairOptions extends TurnToolState {
  catalog: ToolCatalog;
  /** The tools this sender may see and call, in registry order. */
  allowed: readonly ToolDefinition[];
  secrets: readonly string[];
}

type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** Tool sets kept at once; the sets in use are few (one per kind of sender and chat), this only bounds a flood. */
const MAX_TOOL_SETS = 64;

/** The SDK's default (text or JSON), except that a tool's images go to the model as image parts. */
function modelOutput(output: unknown): ToolResultOutput {
  if (isToolMediaOutput(output)) {
    return {
      type: "content",
      value: output.parts.map((p) => (p.type === "text" ? p : { type: "image-data" as const, data: p.data, mediaType: p.mediaType })),
    };
  }
  return typeof output === "string" ? { type: "text", value: output } : { type: "json", value: (output ?? null) as JSONValue };
}

/**
 * The AI SDK tool set of the tools a sender may use, kept while they are the same definitions: built per turn, the
 * tool objects and their schemas were ~20 KiB of garbage and tens of microseconds a turn. A call gets its turn's
 * state from generateText's `experimental_context` (TurnToolState).
 */
export class TurnToolSets {
  readonly #sets = new Map<string, { allowed: readonly ToolDefinition[]; tools: ToolSet }>();

  constructor(
    private readonly registry: HandlerRegistry,
    private readonly catalog: ToolCatalog,
    private readonly secrets: readonly string[],
  ) {}

  toolsFor(allowed: readonly ToolDefinition[]): ToolSet {
    const key = allowed.map((definition) => definition.name).join(" ");
    const kept = this.#sets.get(key);
    // The same names can stand for new definitions (an MCP server that reconnected, a skill reloaded).
    if (kept && kept.allowed.length === allowed.length && kept.allowed.every((definition, i) => definition === allowed[i])) return kept.tools;
    const tools: ToolSet = {};
    for (const definition of allowed) {
      tools[definition.name] = tool({
        description: definition.shortDescription,
        // No validator here: the registry validates against the full schema and explains what is wrong.
        inputSchema: jsonSchema(this.catalog.compactSchema(definition.name) as JSONSchema7),
        execute: async (input, { abortSignal, experimental_context }) =>
          this.#run(definition.name, input, abortSignal, experimental_context as TurnToolState),
        toModelOutput: ({ output }) => modelOutput(output),
      });
    }
    if (this.#sets.size >= MAX_TOOL_SETS) this.#sets.clear();
    this.#sets.set(key, { allowed: [...allowed], tools });
    return tools;
  }

  async #run(name: string, input: unknown, abortSignal: AbortSignal | undefined, turn: TurnToolState): Promise<unknown> {
    const { context } = turn;
    const started = performance.now();
    const outcome = await this.registry.executeByTool(name, input, { ...context, signal: abortSignal ?? context.signal });
    turn.calls.push(callLog(outcome, started, this.secrets));
    if (outcome.ok) return redactSecrets(outcome.output ?? null, this.secrets);
    // Tool output goes to the model provider: configured secrets are blanked wherever they turn up.
    const failure: Record<string, unknown> = { error: outcome.error, code: outcome.code };
    if (outcome.code === "invalid_input") {
      // The full definition, so the next step can fix the call without asking for it.
      const definition = this.registry.getTool(name);
      if (definition) {
        failure.definition = this.catalog.definition(definition);
        context.disclosedTools.add(name);
      }
    }
    return redactSecrets(failure, this.secrets);
  }
}

/**
 * Handles a call the SDK could not match to a sent tool: a name that differs only in case, dashes or underscores
 * is mapped to the tool; a tool the sender may not use is refused with the missing permission named; anything
 * else is "no such tool" with the closest names the sender may use. The thrown message is what the model reads.
 */
export function toolCallRepairer(opts: ToolCallRepairOptions): ToolCallRepairFunction<ToolSet> {
  const { catalog, allowed, context, secrets } = opts;
  return async ({ toolCall, error }) => {
    const asked = toolCall.toolName;
    if (!NoSuchToolError.isInstance(error)) {
      // Arguments that are not JSON: the SDK's own error says so; the session log keeps a line for it.
      opts.calls.push({ tool: asked, ok: false, code: "invalid_input", error: redactText(error.message, secrets), durationMs: 0 });
      return null;
    }
    const known = catalog.resolve(asked);
    if (known && allowed.includes(known)) return { ...toolCall, toolName: known.name };
    const message = known
      ? (permissionRefusal(`The tool ${known.name}`, known.risk, context.permissions) ??
        `The tool ${known.name} is not available in this conversation.`)
      : noSuchToolMessage(asked, suggestToolNames(asked, allowed.map((definition) => definition.name)));
    const code = known ? "denied" : "unknown_tool";
    // The audit line: who, where, and why; never the input.
    const where = { channel: context.channel, userId: context.senderId, chatId: context.chatId };
    context.log.info({ tool: asked, code, ...where, traceId: context.traceId, reason: message }, "tool call refused before it ran");
    opts.calls.push({ tool: asked, ok: false, code, error: redactText(message, secrets), durationMs: 0 });
    opts.refusals.set(toolCall.toolCallId, message);
    throw new Error(message);
  };
}

function callLog(outcome: ToolOutcome, started: number, secrets: readonly string[]): ToolCallLog {
  const durationMs = Math.round(performance.now() - started);
  const approval = outcome.approval ? { approval: outcome.approval } : {};
  if (outcome.ok) return { tool: outcome.tool, ok: true, durationMs, ...approval };
  return { tool: outcome.tool, ok: false, code: outcome.code, error: redactText(outcome.error, secrets), durationMs, ...approval };
}
