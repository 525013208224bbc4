/**
 * Which tool definitions a request carries. Every permitted tool can be called by name in every step (the turn's
 * tool set holds them all), but only the core tools, the ones most turns use, go to the provider with their
 * schemas; the others are named with their short description in the system prompt's catalog, and get_tool_info
 * shows a tool's definition together with its family's (handlers/system.ts). A family's definitions then stay in
 * the session's history; once compaction has summarized them away, the family's tools are sent with the core ones.
 * What is sent changes only when the history is compacted, so the tools and the prompt before the history stay
 * one cacheable prefix for the whole session. `npm run bench tokens` measured this against sending every schema.
 */
import { wrapLanguageModel, type LanguageModel } from "ai";
import type { ToolDefinition } from "../core/tools.js";

/**
 * Sent with their schemas on every request: the discovery tools (get_tool_info, and get_skill_info, which the
 * prompt's skills section says to call before using a skill), reminders and web pages (asked for in one step in
 * most sessions that use tools at all), and writing a file (what the file tools and delivery start from).
 */
export const CORE_TOOLS: ReadonlySet<string> = new Set(["get_tool_info", "get_skill_info", "schedule_task", "web_fetch", "write_file"]);

export interface ToolExposure {
  /** Sent with their schemas. */
  sent: ReadonlySet<string>;
  /** Permitted but not sent: the catalog in the system prompt names them. */
  listed: readonly ToolDefinition[];
}

/**
 * The split of `allowed` for a session: the core tools, plus (once the history was compacted) the families of the
 * tools whose definitions the session was shown.
 */
export function toolExposure(allowed: readonly ToolDefinition[], disclosed: Iterable<string>, compacted: boolean): ToolExposure {
  const warm = new Set<string>();
  if (compacted) {
    const names = new Set(disclosed);
    for (const tool of allowed) if (names.has(tool.name)) warm.add(tool.category);
  }
  const isSent = (tool: ToolDefinition): boolean => CORE_TOOLS.has(tool.name) || warm.has(tool.category);
  return {
    sent: new Set(allowed.filter(isSent).map((tool) => tool.name)),
    listed: allowed.filter((tool) => !isSent(tool)),
  };
}

/** Level 1 of the tools not sent: by category, one line each with the short description. */
export function toolCatalogText(listed: readonly ToolDefinition[]): string {
  const byCategory = new Map<string, string[]>();
  for (const tool of listed) {
    const lines = byCategory.get(tool.category) ?? [];
    lines.push(`${tool.name}: ${tool.shortDescription}`);
    byCategory.set(tool.category, lines);
  }
  return [...byCategory].map(([category, lines]) => `${category}:\n${lines.join("\n")}`).join("\n");
}

/** `model` sending only the definitions of `sent`; calls to the other tools of the turn's set still run. */
export function exposedToolsModel(model: LanguageModel, sent: ReadonlySet<string>): LanguageModel {
  if (typeof model === "string" || model.specificationVersion !== "v3") return model;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      transformParams: async ({ params }) => ({ ...params, tools: params.tools?.filter((tool) => sent.has(tool.name)) }),
    },
  });
}
