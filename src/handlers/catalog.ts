/**
 * The tool catalog: progressive disclosure of the registry's tools to the model.
 * Level 1 is each permitted tool's name and short description (the core tools with their compact schema, see
 * agent/exposure.ts), level 2 the full definition on request (info, via get_tool_info, or with an invalid call's
 * error) with the compact forms of its family (brief), level 3 the call itself (HandlerRegistry.executeByTool).
 */
import { z } from "zod";
import type { HandlerRegistry } from "./registry.js";
import type { RiskClass, ToolDefinition } from "../core/tools.js";
import { normalizeToolName, suggestToolNames } from "../core/names.js";

export interface ToolInfo {
  name: string;
  category: string;
  description: string;
  inputSchema: object;
  risk: RiskClass;
}

export class ToolCatalog {
  private readonly schemas = new WeakMap<ToolDefinition, object>();
  private readonly compactSchemas = new WeakMap<ToolDefinition, object>();

  constructor(private readonly registry: HandlerRegistry) {}

  /**
   * The tool `name` stands for, forgiving only case, dashes, underscores and spaces (`Schedule-Task`,
   * ` schedule task `). A near miss (`schedule_taks`) is undefined: a guess could unlock a different tool.
   */
  resolve(name: string): ToolDefinition | undefined {
    const exact = this.registry.getTool(name);
    if (exact) return exact;
    const wanted = normalizeToolName(name);
    return this.registry.listTools().find((tool) => normalizeToolName(tool.name) === wanted);
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

  /**
   * The other tools of `name`'s category that `visible` lets through, in brief: `name(parameters): short
   * description`, the parameters as types (signature()), enough to call them; get_tool_info has the rest.
   */
  family(name: string, visible: (tool: ToolDefinition) => boolean): Array<{ name: string; brief: string }> {
    const tool = this.resolve(name);
    if (!tool) return [];
    return this.registry
      .listTools()
      .filter((other) => other.category === tool.category && other !== tool && visible(other))
      .map((other) => ({ name: other.name, brief: `${other.name}(${signature(this.jsonSchema(other.name), true)}): ${other.shortDescription}` }));
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

  /**
   * The tool's schema as sent with the core tools: types, enums, required fields and defaults stay, descriptions
   * are cut to their first sentence, and the limits (lengths, ranges, no extra properties) go: the registry checks
   * them and an invalid call's error names them. The full schema comes with get_tool_info and with an invalid call's error.
   */
  compactSchema(name: string): object {
    const tool = this.registry.getTool(name);
    if (!tool) throw new Error(`No tool named "${name}" is registered`);
    const cached = this.compactSchemas.get(tool);
    if (cached) return cached;
    const compact = compactJsonSchema(this.jsonSchema(name)) as object;
    this.compactSchemas.set(tool, compact);
    return compact;
  }
}

const COMPACT_DESCRIPTION_CHARS = 60;

const LIMIT_KEYWORDS = new Set(["minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "additionalProperties"]);

/** A copy of `schema` with every `description` shortened and the limits left out (see compactSchema). */
function compactJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactJsonSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !LIMIT_KEYWORDS.has(key))
      .map(([key, value]) => (key === "description" && typeof value === "string" ? [key, shortenDescription(value)] : [key, compactJsonSchema(value)])),
  );
}

type SchemaNode = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
};

/**
 * A JSON Schema as the types of a TypeScript signature: `url: string, wait?: boolean`, `{type: "file" | "image"}[]`.
 * `bare` leaves out the braces of the outermost object (a parameter list).
 */
function signature(schema: SchemaNode, bare = false): string {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map((s) => signature(s)).join(" | ");
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === "array") return `${schema.items ? wrapUnion(signature(schema.items)) : "unknown"}[]`;
  if (schema.type === "integer") return "number";
  if (schema.type !== "object" || !schema.properties) return schema.type ?? "unknown";
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${signature(value)}`);
  return bare ? fields.join(", ") : `{${fields.join(", ")}}`;
}

const wrapUnion = (type: string): string => (type.includes(" | ") ? `(${type})` : type);

/** Up to the first full stop, question or exclamation mark before a space; the stop of "e.g." and the like is not one. */
const FIRST_SENTENCE = /^.+?(?:(?<!\b(?:e\.g|i\.e|etc|vs|cf))[.!?](?=\s)|$)/iu;

/**
 * Ends in "..." rather than an ellipsis character: one character outside Latin-1 makes V8 hold the whole request
 * body these go into as a two-byte string (twice the memory, slower to serialize and encode) on every model call.
 */
function shortenDescription(text: string): string {
  const sentence = FIRST_SENTENCE.exec(text.replace(/\s+/g, " ").trim())?.[0] ?? text;
  if (sentence.length <= COMPACT_DESCRIPTION_CHARS) return sentence.replace(/\.$/, "");
  const cut = sentence.lastIndexOf(" ", COMPACT_DESCRIPTION_CHARS - 1);
  return `${sentence.slice(0, cut > COMPACT_DESCRIPTION_CHARS / 2 ? cut : COMPACT_DESCRIPTION_CHARS - 1)}...`;
}
