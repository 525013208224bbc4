/**
 * The tool catalog: progressive disclosure of the registry's tools to the model.
 * Level 1 is each permitted tool's name and short description (the core tools with their compact schema, see
 * agent/exposure.ts), level 2 the full definition on request (definition, via get_tool_info, or with an invalid
 * call's error) with its family's signatures, level 3 the call itself (HandlerRegistry.executeByTool).
 */
import { z } from "zod";
import type { HandlerRegistry } from "./registry.js";
import type { ToolDefinition } from "../core/tools.js";
import { normalizeToolName, suggestToolNames } from "../core/names.js";
import { fieldLines, signature } from "./signatures.js";

export class ToolCatalog {
  private readonly schemas = new WeakMap<ToolDefinition, object>();
  private readonly compactSchemas = new WeakMap<ToolDefinition, object>();
  private readonly definitions = new WeakMap<ToolDefinition, string>();

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

  /**
   * Level 2, what the model reads about `tool` (get_tool_info's answer, an invalid call's error): its signature, its
   * description and its described fields; then the `family` (the other tools of its category the sender may use)
   * as signatures on one line, enough to call them, since their short descriptions are in the catalog already.
   */
  definition(tool: ToolDefinition, family: readonly ToolDefinition[] = []): string {
    const own = this.ownDefinition(tool);
    if (family.length === 0) return own;
    return `${own}\nAlso in ${tool.category}: ${family.map((other) => this.signatureOf(other)).join(", ")}`;
  }

  /** The other tools of `tool`'s category that `visible` lets through, in registry order. */
  family(tool: ToolDefinition, visible: (other: ToolDefinition) => boolean): ToolDefinition[] {
    return this.registry.listTools().filter((other) => other.category === tool.category && other !== tool && visible(other));
  }

  private ownDefinition(tool: ToolDefinition): string {
    const cached = this.definitions.get(tool);
    if (cached) return cached;
    const fields = fieldLines(this.jsonSchema(tool.name));
    const text = [this.signatureOf(tool), tool.description.trim(), ...(fields.length > 0 ? ["Parameters:", ...fields] : [])].join("\n");
    this.definitions.set(tool, text);
    return text;
  }

  private signatureOf(tool: ToolDefinition): string {
    return `${tool.name}(${signature(this.jsonSchema(tool.name), true)})`;
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
