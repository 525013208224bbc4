/**
 * The registry's tools as an AI SDK tool set for one turn. Every tool the sender may use is in the set, so a
 * call to it can run, but only the always-loaded and disclosed ones are active (their schemas sent); the SDK
 * answers a call to an inactive or unknown tool with an error result and the loop goes on.
 */
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from "ai";
import { redactSecrets } from "../infra/config/secrets.js";
import type { ToolCatalog } from "../handlers/catalog.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import type { ToolContext, ToolDefinition } from "../core/tools.js";

export interface TurnToolsOptions {
  registry: HandlerRegistry;
  catalog: ToolCatalog;
  /** The tools this sender may see and call. */
  allowed: readonly ToolDefinition[];
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
      .filter((definition) => definition.alwaysLoaded === true || context.disclosedTools.has(definition.name))
      .map((definition) => definition.name);
  return { tools, activeTools };
}
