/**
 * The registry's tools as an AI SDK tool set for one turn. Every tool the sender may use is in the set, so a
 * call to it can run, but only the always-loaded and disclosed ones are active (their schemas sent); the SDK
 * answers a call to an inactive or unknown tool with an error result and the loop goes on.
 */
import { jsonSchema, tool, type JSONSchema7, type JSONValue, type Tool, type ToolSet } from "ai";
import { redactSecrets } from "../config/secrets.js";
import type { ToolCatalog } from "../handlers/catalog.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import { isToolMediaOutput, type ToolContext, type ToolDefinition } from "../handlers/types.js";

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

type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

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
      toModelOutput: ({ output }) => modelOutput(output),
    });
  }
  const activeTools = (): string[] =>
    opts.allowed
      .filter((definition) => definition.alwaysLoaded === true || context.disclosedTools.has(definition.name))
      .map((definition) => definition.name);
  return { tools, activeTools };
}
