/**
 * The tool catalog: progressive disclosure of the registry's tools to the model.
 * Level 1 is a short list in the system prompt (render), level 2 the full definition on request (info, via
 * get_tool_info), level 3 the call itself (HandlerRegistry.executeByTool).
 */
import { z } from "zod";
import type { HandlerRegistry } from "./registry.js";
import type { RiskClass, ToolDefinition } from "../core/tools.js";
import { normalizeToolName, rankByDistance, suggestToolNames } from "../core/names.js";

export interface ToolInfo {
  name: string;
  category: string;
  description: string;
  inputSchema: object;
  risk: RiskClass;
}

export class ToolCatalog {
  private readonly schemas = new WeakMap<ToolDefinition, object>();

  constructor(private readonly registry: HandlerRegistry) {}

  /** Level 1: markdown grouped by category: "### Category" then "- name: shortDescription" lines. */
  render(filter: (tool: ToolDefinition) => boolean = () => true): string {
    const byCategory = new Map<string, string[]>();
    for (const tool of this.registry.listTools().filter(filter)) {
      const lines = byCategory.get(tool.category) ?? [];
      lines.push(`- ${tool.name}: ${tool.shortDescription}`);
      byCategory.set(tool.category, lines);
    }
    return [...byCategory].map(([category, lines]) => `### ${category}\n${lines.join("\n")}`).join("\n\n");
  }

  /**
   * Forgiving lookup: exact, then case/dash/space-insensitive (`schedule-task`, `Schedule_Task`), then the one
   * closest name within a small edit distance; undefined when nothing is close or two names are equally close.
   */
  resolve(name: string): ToolDefinition | undefined {
    const exact = this.registry.getTool(name);
    if (exact) return exact;
    const wanted = normalizeToolName(name);
    const tools = this.registry.listTools();
    const sameNormalized = tools.find((tool) => normalizeToolName(tool.name) === wanted);
    if (sameNormalized) return sameNormalized;
    const ranked = rankByDistance(wanted, tools.map((tool) => tool.name));
    const [best, second] = ranked;
    if (!best || (second && second.distance === best.distance)) return undefined;
    return this.registry.getTool(best.name);
  }

  /** Registered names close to `name`, closest first; for "did you mean" hints. */
  suggest(name: string): string[] {
    return suggestToolNames(name, this.registry.listTools().map((tool) => tool.name));
  }

  /** Level 2: the full definition the model reads. */
  info(name: string): ToolInfo | undefined {
    const tool = this.resolve(name);
    if (!tool) return undefined;
    return {
      name: tool.name,
      category: tool.category,
      description: tool.description,
      inputSchema: this.jsonSchema(tool.name),
      risk: tool.risk,
    };
  }

  /** JSON Schema of the tool's input, for the LLM request; computed once per definition (a reload makes a new one). */
  jsonSchema(name: string): object {
    const tool = this.registry.getTool(name);
    if (!tool) throw new Error(`No tool named "${name}" is registered`);
    const cached = this.schemas.get(tool);
    if (cached) return cached;
    // "input" mode: fields with defaults are optional for the caller. The $schema marker is noise to the model.
    const { $schema: _marker, ...schema } = z.toJSONSchema(tool.input, { io: "input" });
    this.schemas.set(tool, schema);
    return schema;
  }
}
