/** A session's stored model messages as lines a person reads: who said it and the text, tool calls by name. */
import type { ModelMessage } from "ai";
import { redactText } from "../infra/config/secrets.js";

export interface TranscriptLine {
  role: "system" | "user" | "assistant" | "tool";
  text: string;
}

const TOOL_RESULT_CHARS = 500;

export function transcriptOf(messages: readonly ModelMessage[], secrets: readonly string[]): TranscriptLine[] {
  return messages.map((m) => ({ role: m.role, text: redactText(textOf(m), secrets) }));
}

function textOf(message: ModelMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => {
      switch (part.type) {
        case "text":
          return part.text;
        case "tool-call":
          return `[calls ${part.toolName} ${JSON.stringify(part.input)}]`;
        case "tool-result":
          return `[${part.toolName} answered ${JSON.stringify(part.output).slice(0, TOOL_RESULT_CHARS)}]`;
        default:
          return `[${part.type}]`;
      }
    })
    .join("\n");
}
