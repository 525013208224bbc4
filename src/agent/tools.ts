/**
 * The registry's tools as an AI SDK tool set for one turn. Every allowed tool is in the set, so a call to it
 * reaches the registry, but only the shown ones that are always loaded or disclosed are active (their schemas
 * sent). A call to a tool the sender's permissions do not cover is refused by the registry, naming the missing
 * permission, so the model can tell the user why; the SDK answers a call to an unknown tool with an error result.
 */
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from "ai";
import { redactSecrets } from "../config/secrets.js";
import type { ToolCatalog } from "../handlers/catalog.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import type { ToolContext, ToolDefinition } from "../handlers/types.js";

export interface TurnToolsOptions {
  registry: HandlerRegistry;
  catalog: ToolCatalog;
  /** The tools of this turn: calls to them go to the registry, which checks the sender's permissions. */
  allowed: readonly ToolDefinition[];
  /** Whether the model is shown a tool (its schema sent once disclosed): the ones the sender may use. */
  shown: (tool: ToolDefinition) => boolean;
  /** Shared by every call of the turn; get_tool_info adds to its disclosedTools. */
  context: ToolContext;
  secrets: readonly string[];
}

export interface TurnTools {
  tools: ToolSet;
  /** The tools whose schemas go with the next request: always-loaded ones plus those disclosed so far. */
  activeTools: () => string[];
}

export function buildTurnTools(opts: TurnToolsOptions): TurnTools {
  const { registry, catalog, context, secrets } = opts;
  const tools: ToolSet = {};
  for (const definition of opts.allowed) {
    tools[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(catalog.jsonSchema(definition.name) as JSONSchema7),
      execute: async (input, { abortSignal }) => {
        const outcome = await registry.executeByTool(definition.name, input, {
          ...context,
          signal: abortSignal ?? context.signal,
        });
        // Tool output goes to the model provider: configured secrets are blanked wherever they turn up.
        const result = outcome.ok ? (outcome.output ?? null) : { error: outcome.error, code: outcome.code };
        return redactSecrets(result, secrets);
      },
    });
  }
  const activeTools = (): string[] =>
    opts.allowed
      .filter((definition) => opts.shown(definition))
      .filter((definition) => definition.alwaysLoaded === true || context.disclosedTools.has(definition.name))
      .map((definition) => definition.name);
  return { tools, activeTools };
}
