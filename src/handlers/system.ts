/**
 * System tools. get_tool_info is level 2 of progressive disclosure: the model reads a tool's full
 * description and parameters, and the agent starts sending that tool's schema on the following steps.
 */
import { z } from "zod";
import type { ToolCatalog } from "./catalog.js";
import { dispatchTools, implementTool, requirePermission, ToolError, type ToolDefinition, type ToolHandler } from "../core/tools.js";

const getToolInfoDefinition = {
  name: "get_tool_info",
  category: "System",
  shortDescription: "Show a tool's full description, parameters and an example call",
  description: [
    "Returns the full definition of one tool from the tool catalog: what it does, when to use it, its caveats,",
    "an example call and the JSON Schema of its parameters. After this call the tool can be called directly.",
    "",
    "When to use: before the first call of any catalog tool whose parameters you have not seen yet, or after a",
    "call to a tool failed with invalid input.",
    "",
    "Caveats: names are matched forgivingly (case, dashes and small typos), but an unknown name is an error",
    "that lists the closest tool names.",
    "",
    'Example: get_tool_info({"tool_name": "read_file"})',
  ].join("\n"),
  input: z.object({
    tool_name: z.string().min(1).describe("The tool's name as listed in the catalog, e.g. read_file"),
  }),
  risk: "read",
  alwaysLoaded: true,
} satisfies ToolDefinition;

export const systemTools: ToolDefinition[] = [getToolInfoDefinition];

export function createSystemHandler(catalog: ToolCatalog): ToolHandler {
  const getToolInfo = implementTool(getToolInfoDefinition, async (input, ctx) => {
    const info = catalog.info(input.tool_name);
    if (!info) {
      const close = catalog.suggest(input.tool_name);
      const hint = close.length > 0 ? `Closest tools: ${close.join(", ")}.` : "See the tool catalog for the names.";
      throw new ToolError(`No tool is named "${input.tool_name}". ${hint}`, "unknown_tool");
    }
    // A tool the sender may not use is neither described nor disclosed: the refusal names the missing permission.
    requirePermission(ctx, info.risk, info.name);
    ctx.disclosedTools.add(info.name);
    return info;
  });
  return dispatchTools([getToolInfo]);
}
