/**
 * A call the tool-call repairer refuses (a tool this sender may not use, or no tool by that name) is thrown, and the
 * AI SDK hands the model the thrown message behind its own "Error repairing tool call: ", which reads as a bug in
 * the gateway rather than a refusal. The repairer notes each refusal's own words by tool call id; these put them
 * back as the tool result's text: in what the next step sends, and in what the session's history keeps.
 */
import { wrapLanguageModel, type LanguageModel } from "ai";

/** Refusals' words by tool call id, filled in by the repairer during a turn. */
export type Refusals = Map<string, string>;

interface ToolResultLike {
  type: string;
  toolCallId?: string;
  output?: { type: string };
}

/** The messages with each refused call's error text replaced by the refusal's words; the same array when none is. */
export function withRefusalWords<M extends { role: string; content: unknown }>(messages: M[], refusals: Refusals): M[] {
  if (refusals.size === 0) return messages;
  return messages.map((message) => {
    if (message.role !== "tool" || !Array.isArray(message.content)) return message;
    const parts = message.content as ToolResultLike[];
    const words = (part: ToolResultLike) =>
      part.type === "tool-result" && part.output?.type === "error-text" && part.toolCallId !== undefined ? refusals.get(part.toolCallId) : undefined;
    if (!parts.some((part) => words(part) !== undefined)) return message;
    const content = parts.map((part) => {
      const value = words(part);
      return value === undefined ? part : { ...part, output: { type: "error-text", value } };
    });
    return { ...message, content };
  });
}

/** `model` with the refusals' words in each call's prompt. */
export function refusalWordsModel(model: LanguageModel, refusals: Refusals): LanguageModel {
  if (typeof model === "string" || model.specificationVersion !== "v3") return model;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      transformParams: async ({ params }) => (refusals.size === 0 ? params : { ...params, prompt: withRefusalWords(params.prompt, refusals) }),
    },
  });
}
