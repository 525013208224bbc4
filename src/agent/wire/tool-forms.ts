/**
 * A tool set's request form for an OpenAI-compatible endpoint, serialized once per set of definitions rather than
 * twice a model call (see request-wire.ts). Converted by the provider's own `prepareTools`, the function its getArgs
 * calls, so the bytes are the provider's.
 */
import { prepareTools } from "@ai-sdk/openai-compatible/internal";
import type { CallOptions } from "./model-call.js";

export type CallTool = NonNullable<CallOptions["tools"]>[number];
export type FunctionTool = Extract<CallTool, { type: "function" }>;

/** Tool sets whose forms are kept; the sets in use are few (one per kind of sender and chat), this bounds a flood. */
const TOOL_SETS_KEPT = 64;

/**
 * Tool sets' request forms, comma-separated: what goes where the placeholder was in the tools array. Kept while a
 * call asks for the same definitions: the same names, descriptions and strictness, and the same schema objects
 * (the AI SDK hands on the one a tool was made with; a schema is not changed in place once a tool has it).
 */
export class ToolForms {
  readonly #kept = new Map<string, { tools: FunctionTool[]; bytes: Buffer }>();

  of(tools: readonly FunctionTool[]): Buffer {
    const key = tools.map((tool) => tool.name).join(" ");
    const kept = this.#kept.get(key);
    if (kept && kept.tools.length === tools.length && kept.tools.every((tool, i) => sameDefinition(tool, tools[i]!))) return kept.bytes;
    const forms = prepareTools({ tools: [...tools] }).tools ?? [];
    const bytes = Buffer.from(forms.map((form) => JSON.stringify(form)).join(","));
    if (this.#kept.size >= TOOL_SETS_KEPT) this.#kept.clear();
    this.#kept.set(key, { tools: [...tools], bytes });
    return bytes;
  }
}

/** What the provider's request form of a tool is made of. */
function sameDefinition(a: FunctionTool, b: FunctionTool): boolean {
  return a.name === b.name && a.description === b.description && a.inputSchema === b.inputSchema && a.strict === b.strict;
}
