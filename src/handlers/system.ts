/**
 * System tools (the `system` handler). get_tool_info is level 2 of progressive disclosure: a tool's full
 * description and parameters, with the signatures of the other tools of its family, since a task that needs one
 * browser or desktop tool usually needs several. enable_thinking turns the provider's reasoning on or off for this
 * session; get_session_logs shows this session's recent turns (tool calls, errors, durations, error ids).
 * delegate_task hands a sub-task to a helper agent (registered by the agents feature, which runs the helpers).
 */
import { z } from "zod";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { THINKING_LEVELS, type ThinkingSettings } from "../sessions/thinking.js";
import { TURNS_KEPT, type TurnLog } from "../sessions/turn-log.js";
import type { ToolCatalog } from "./catalog.js";
import { implementTool, permits, requirePermission, ToolError, withToolErrors, type ToolDefinition, type ToolErrorCode, type ToolHandlerSpec } from "../core/tools.js";
import { DelegationError, type Delegation, type DelegationErrorCode } from "../agents/delegation.js";
import { primaryEntry } from "../infra/config/model-entries.js";

const CATEGORY = "System";

const getToolInfoDefinition = {
  name: "get_tool_info",
  category: CATEGORY,
  shortDescription: "Show a tool's full description, parameters and an example call",
  description: [
    "Returns one tool's signature, its full description (when to use it, caveats, an example call) and every",
    "described parameter; then the signatures of the other tools of its family, which can be called directly.",
    "",
    "When to use: before calling a tool from the catalog (its parameters are not shown there), or after a call",
    "failed and its error did not say enough. A call with invalid input already returns the full definition.",
    "",
    "Caveats: case, dashes and underscores in the name are forgiven; any other difference is an error that lists",
    "the closest tool names and shows nothing else.",
    "",
    'Example: get_tool_info({"tool_name": "read_file"})',
  ].join("\n"),
  input: z.object({
    tool_name: z.string().min(1).describe("The tool's name, e.g. read_file"),
  }),
  risk: "read",
} satisfies ToolDefinition;

const enableThinkingDefinition = {
  name: "enable_thinking",
  category: CATEGORY,
  shortDescription: "Turn the model's step-by-step reasoning on or off for this conversation",
  description: [
    "Turns the language model's own reasoning (Anthropic extended thinking, OpenAI-style reasoning_effort) on or",
    "off for this conversation, from the next message on. Reasoning makes answers slower and costlier",
    "but better on hard problems.",
    "",
    "When to use: the user asks you to think harder (or to stop), or a task needs careful multi-step reasoning.",
    "",
    "Caveats: only models configured as able to reason (llm.reasoning) can; otherwise the result says so and",
    "nothing changes.",
    "",
    'Example: enable_thinking({"enabled": true, "level": "high"})',
  ].join("\n"),
  input: z.object({
    enabled: z.boolean().describe("true to turn reasoning on, false to turn it off"),
    level: z.enum(THINKING_LEVELS).default("medium").describe("How much to reason when on"),
  }),
  risk: "chat",
} satisfies ToolDefinition;

const getSessionLogsDefinition = {
  name: "get_session_logs",
  category: CATEGORY,
  shortDescription: "Show this conversation's recent turns: tool calls, errors, durations",
  description: [
    "Returns the most recent turns of this conversation, oldest first: when each started, how long it took, how",
    "many model calls it made, each tool call with its result (ok or the error code and message) and duration,",
    "and the error id of a turn that failed. Tool inputs and outputs are not kept; secrets are removed.",
    "",
    "When to use: the user asks what went wrong, what you did, or quotes an error id.",
    "",
    "Caveats: only this conversation's log is shown, never another chat's.",
    "",
    'Example: get_session_logs({"turns": 3})',
  ].join("\n"),
  input: z.object({
    turns: z.number().int().min(1).max(TURNS_KEPT).default(5).describe(`How many recent turns, 1-${TURNS_KEPT}`),
  }),
  risk: "read",
} satisfies ToolDefinition;


export interface SystemHandlerDeps {
  catalog: ToolCatalog;
  /** The sessions' reasoning settings and turn logs, shared with the agent. */
  thinking: ThinkingSettings;
  turnLog: TurnLog;
  llm: CoreConfig["llm"];
}

export function createSystemHandler(deps: SystemHandlerDeps): ToolHandlerSpec {
  const { catalog, llm, thinking, turnLog: turns } = deps;
  const getToolInfo = implementTool(getToolInfoDefinition, async (input, ctx) => {
    const tool = catalog.resolve(input.tool_name);
    if (!tool) {
      const close = catalog.suggest(input.tool_name);
      const hint = close.length > 0 ? `Closest tools: ${close.join(", ")}.` : "The tools you can use are listed with your tools.";
      throw new ToolError(`No tool is named "${input.tool_name}". ${hint}`, "unknown_tool");
    }
    // A tool the sender may not use is not described: the refusal names the missing permission.
    requirePermission(ctx, tool.risk, tool.name);
    const family = catalog.family(tool, (other) => permits(ctx.permissions, other.risk));
    for (const shown of [tool, ...family]) ctx.disclosedTools.add(shown.name);
    return catalog.definition(tool, family);
  });

  const enableThinking = implementTool(enableThinkingDefinition, async (input, ctx) => {
    const primary = primaryEntry(llm);
    if (!primary?.reasoning) {
      return {
        thinking: "unsupported",
        message:
          `The configured model (${primary?.model ?? "none"}) is not set up for reasoning (llm.reasoning is off), ` +
          "so thinking cannot be turned on or off here. Nothing changed.",
      };
    }
    await thinking.set(ctx.sessionKey, { enabled: input.enabled, level: input.level });
    const how = primary.provider === "anthropic" ? "extended thinking" : "reasoning_effort";
    return {
      thinking: input.enabled ? "on" : "off",
      message: input.enabled
        ? `Reasoning is on (${input.level}, ${how}) for this conversation from the next message on.`
        : "Reasoning is off for this conversation from the next message on.",
    };
  });

  const getSessionLogs = implementTool(getSessionLogsDefinition, async (input, ctx) => {
    // Only ever the caller's own session: the key comes from the turn, never from the input.
    const recent = await turns.recent(ctx.sessionKey, input.turns);
    return { turns: recent, note: recent.length === 0 ? "No earlier turns are logged for this conversation." : undefined };
  });

  return { name: "system", tools: [getToolInfo, enableThinking, getSessionLogs] };
}

/** The agents a helper may be, as delegate_task's description lists them. */
export interface HelperAgent {
  id: string;
  name: string | null;
}

const DELEGATION_ERRORS: Readonly<Record<DelegationErrorCode, ToolErrorCode>> = { invalid: "invalid_input", denied: "denied", failed: "failed" };

function delegateTaskDefinition(helpers: readonly HelperAgent[], timeoutMs: number) {
  const names = helpers.map((helper) => (helper.name ? `${helper.id} (${helper.name})` : helper.id)).join(", ");
  return {
    name: "delegate_task",
    category: CATEGORY,
    shortDescription: "Hand a sub-task to a helper agent and get its answer back",
    description: [
      "Runs a helper agent on a self-contained sub-task and returns its answer. The helper starts with no view of",
      "this conversation: give it everything it needs in `task` and `context`. It acts for the same person, with",
      "at most the same permissions. Several delegate_task calls in one step run at the same time.",
      "",
      "When to use: a task splits into independent parts (research two topics, check several things), or another",
      "agent is better suited to a part of it.",
      "",
      `Caveats: helpers cannot start helpers of their own beyond the configured depth; a helper stops after a few steps. Agents: ${names}.`,
      "",
      'Example: delegate_task({"task": "Find the opening hours of the city library", "context": "The user lives in Zurich"})',
    ].join("\n"),
    input: z.object({
      agent: z.string().min(1).optional().describe("The helper agent's id; omit for a helper like yourself"),
      task: z.string().trim().min(1).max(4_000).describe("What the helper should do, self-contained"),
      context: z.string().max(8_000).optional().describe("Facts from this conversation the helper needs"),
    }),
    risk: "chat",
    timeoutMs,
  } satisfies ToolDefinition;
}

/** delegate_task, a `system` tool that exists where agents (and a language model) do; see agents/delegation.ts. */
export function createDelegationHandler(delegation: Delegation, opts: { helpers: readonly HelperAgent[]; timeoutMs: number }): ToolHandlerSpec {
  const delegate = implementTool(delegateTaskDefinition(opts.helpers, opts.timeoutMs), async (input, ctx) => {
    const result = await withToolErrors(DelegationError, DELEGATION_ERRORS, () => delegation.delegate(input, ctx));
    return {
      agent: result.agent,
      answer: result.answer,
      steps: result.steps,
      tools_used: result.toolCalls,
      ...(result.unfinished ? { note: "The helper stopped at its bound before it finished; its answer may be partial." } : {}),
    };
  });
  return { name: "system", tools: [delegate] };
}
