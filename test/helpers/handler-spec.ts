/** A handler for tests: one function runs every tool, told which one by name. */
import type { ToolContext, ToolDefinition, ToolHandlerSpec } from "../../src/core/tools.js";

export type TestToolRun = (toolName: string, input: unknown, ctx: ToolContext) => Promise<unknown>;

export function handlerSpec(name: string, run: TestToolRun, definitions: readonly ToolDefinition[]): ToolHandlerSpec {
  return { name, tools: definitions.map((definition) => ({ definition, run: (input, ctx) => run(definition.name, input, ctx) })) };
}

/** The definitions of a handler's tools. */
export function definitionsOf(spec: ToolHandlerSpec): ToolDefinition[] {
  return spec.tools.map((tool) => tool.definition);
}
