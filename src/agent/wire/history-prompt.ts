/**
 * The session's history handed to the model already in the provider's prompt form. generateText validates (zod)
 * and converts every message it is given, on every call: in a long session that was most of a turn's CPU, and the
 * part that grew with the session (600 short messages: ~1.5 ms a call). The history was validated when it was
 * loaded; here each of its messages is converted once (kept per message object, which the history cache reuses
 * from turn to turn) and spliced in after the system prompt by a middleware. generateText then converts only what
 * is left: this turn's message, and any history from the first message this cannot convert on (media that the SDK
 * may have to download).
 */
import { wrapLanguageModel, type LanguageModel, type ModelMessage } from "ai";
import { HistoryFold } from "../../sessions/history-fold.js";
import type { PromptMessage } from "./model-call.js";

type AssistantPart = Extract<PromptMessage, { role: "assistant" }>["content"][number];
type ToolResultPart = Extract<PromptMessage, { role: "tool" }>["content"][number];
type ToolOutput = Extract<ToolResultPart, { type: "tool-result" }>["output"];
type ModelAssistantPart = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>[number];
type ToolResultOutput = Extract<ModelAssistantPart, { type: "tool-result" }>["output"];

/** What a turn hands to generateText: the model, with the converted history in front, and the messages left. */
export interface HistoryPrompt {
  model: LanguageModel;
  messages: ModelMessage[];
}

const converted = new WeakMap<ModelMessage, PromptMessage>();

/** What a look at a history's messages, in order, found out about the part that can be spliced. */
interface Scan {
  /** The converted messages; only ever appended to. */
  prefix: PromptMessage[];
  openCalls: Set<string>;
  /** Where the spliced part may end: after a message that left no tool call open... */
  closedAt: number;
  /** ...or after the last one looked at, a tool message, unless the next is a tool message too. */
  pending: boolean;
  /** A message generateText must convert itself was reached: the rest is left to it. */
  stopped: boolean;
}

/** Kept from turn to turn, so that a turn looks only at the messages added since the last. */
const scans = new HistoryFold<Scan>(() => ({ prefix: [], openCalls: new Set(), closedAt: 0, pending: false, stopped: false }), scanned);

/**
 * `model` with the longest convertible start of `history` spliced into every call's prompt, and the messages
 * generateText must still be given (the rest of the history, then `latest`). The spliced part ends where every
 * tool call has its result, as generateText's own check demands of a prompt.
 */
export function withHistoryPrompt(model: LanguageModel, history: readonly ModelMessage[], latest: ModelMessage): HistoryPrompt {
  if (typeof model === "string" || model.specificationVersion !== "v3") return { model, messages: [...history, latest] };
  const scan = scans.of(history);
  const closedAt = scan.pending ? history.length : scan.closedAt;
  const messages = [...history.slice(closedAt), latest];
  if (closedAt === 0) return { model, messages };
  // generateText puts the `system` option's messages first, then those of `messages`: the history goes between.
  const firstOther = messages.findIndex((message) => message.role !== "system");
  const ownSystem = firstOther === -1 ? messages.length : firstOther;
  const at = (prompt: readonly PromptMessage[]): number => {
    const leadingSystem = prompt.findIndex((message) => message.role !== "system");
    return (leadingSystem === -1 ? prompt.length : leadingSystem) - ownSystem;
  };
  const prefix = scan.prefix.slice(0, closedAt);
  return {
    model: wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: "v3",
        transformParams: ({ params }) => {
          const index = at(params.prompt);
          return Promise.resolve({ ...params, prompt: [...params.prompt.slice(0, index), ...prefix, ...params.prompt.slice(index)] });
        },
      },
    }),
    messages,
  };
}

/** The scan with the history's message at `index` looked at too. */
function scanned(scan: Scan, message: ModelMessage, index: number): Scan {
  if (scan.stopped) return scan;
  if (scan.pending) {
    scan.pending = false;
    if (message.role !== "tool") scan.closedAt = index;
  }
  const prompt = promptMessage(message);
  // generateText merges a tool message into the one before, and refuses a user message while a call is open:
  // both are left to it.
  if (!prompt || (prompt.role === "tool" && scan.prefix.at(-1)?.role === "tool") || (prompt.role === "user" && scan.openCalls.size > 0)) {
    scan.stopped = true;
    return scan;
  }
  scan.prefix.push(prompt);
  trackToolCalls(prompt, scan.openCalls);
  if (scan.openCalls.size === 0) {
    if (prompt.role === "tool") scan.pending = true;
    else scan.closedAt = index + 1;
  }
  return scan;
}

function trackToolCalls(message: PromptMessage, open: Set<string>): void {
  for (const part of message.content) {
    if (typeof part === "string") continue;
    if (part.type === "tool-call" && !part.providerExecuted) open.add(part.toolCallId);
    else if (part.type === "tool-result") open.delete(part.toolCallId);
  }
}

/** The message as generateText would convert it, or undefined when only generateText can (it may download). */
function promptMessage(message: ModelMessage): PromptMessage | undefined {
  const known = converted.get(message);
  if (known) return known;
  const prompt = convert(message);
  if (prompt) converted.set(message, prompt);
  return prompt;
}

function convert(message: ModelMessage): PromptMessage | undefined {
  const { providerOptions } = message;
  switch (message.role) {
    case "system":
      // Not kept in a history; generateText warns about one, so it is left to it.
      return undefined;
    case "user": {
      if (typeof message.content === "string") return { role: "user", content: [{ type: "text", text: message.content }], providerOptions };
      const parts = [];
      for (const part of message.content) {
        if (part.type !== "text") return undefined;
        if (part.text !== "") parts.push({ type: "text" as const, text: part.text, providerOptions: part.providerOptions });
      }
      return { role: "user", content: parts, providerOptions };
    }
    case "assistant": {
      if (typeof message.content === "string") return { role: "assistant", content: [{ type: "text", text: message.content }], providerOptions };
      const parts: AssistantPart[] = [];
      for (const part of message.content) {
        const converted = assistantPart(part);
        if (converted === undefined) return undefined;
        if (converted !== null) parts.push(converted);
      }
      return { role: "assistant", content: parts, providerOptions };
    }
    case "tool": {
      const parts: ToolResultPart[] = [];
      for (const part of message.content) {
        const output = part.type === "tool-result" ? plainOutput(part.output) : undefined;
        if (part.type !== "tool-result" || !output) return undefined;
        parts.push({ type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output, providerOptions: part.providerOptions });
      }
      return parts.length > 0 ? { role: "tool", content: parts, providerOptions } : undefined;
    }
  }
}

/** null for a part generateText drops, undefined for one this leaves to generateText. */
function assistantPart(part: ModelAssistantPart): AssistantPart | null | undefined {
  switch (part.type) {
    case "text":
      return part.text === "" && !part.providerOptions ? null : { type: "text", text: part.text, providerOptions: part.providerOptions };
    case "reasoning":
      return { type: "reasoning", text: part.text, providerOptions: part.providerOptions };
    case "tool-call":
      return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, providerExecuted: part.providerExecuted, providerOptions: part.providerOptions };
    case "tool-result": {
      const output = plainOutput(part.output);
      return output ? { type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output, providerOptions: part.providerOptions } : undefined;
    }
    default:
      return part.type === "tool-approval-request" ? null : undefined;
  }
}

/** An output generateText passes on unchanged (anything but content, or content of text only), else undefined. */
function plainOutput(output: ToolResultOutput): ToolOutput | undefined {
  if (output.type !== "content") return output;
  const texts = output.value.filter((item) => item.type === "text");
  return texts.length === output.value.length ? { type: "content", value: texts } : undefined;
}
