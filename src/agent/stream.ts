/**
 * Reads a streamed model run (the AI SDK's streamText) to its end and tells the turn's observer what to show while
 * it runs: the current step's text as it grows and a status line while a tool runs. What is shown is redacted of
 * secrets like the final reply, and a tail that could be the start of a secret is held back until it is not.
 */
import type { StreamTextOnFinishCallback, StreamTextResult, ToolSet } from "ai";
import { basename } from "node:path";
import type { TurnEvent } from "../core/turn.js";
import { redactText } from "../infra/config/secrets.js";

/** What the agent needs of a finished run, the same as generateText would return. */
export interface StreamedGeneration {
  text: string;
  response: { messages: Awaited<StreamTextResult<ToolSet, never>["response"]>["messages"] };
  finishReason: Awaited<StreamTextResult<ToolSet, never>["finishReason"]>;
  steps: unknown[];
  totalUsage: Awaited<StreamTextResult<ToolSet, never>["totalUsage"]>;
}

const STATUS_LABEL_MAX = 60;

type FinishEvent = Parameters<StreamTextOnFinishCallback<ToolSet>>[0];

/**
 * Keeps streamText's finish event. Reading the result's promises (text, response, steps...) instead would tee the
 * stream once more for each promise: ~0.6 ms of CPU per model call, a quarter of what the streaming path costs.
 */
export class FinishCatcher {
  event: FinishEvent | undefined;
  readonly onFinish = (event: FinishEvent): void => {
    this.event = event;
  };
}

/** Consumes the stream; throws the stream's error (a failed model call) instead of returning a half answer. */
export async function readStream(
  result: StreamTextResult<ToolSet, never>,
  finish: FinishCatcher,
  secrets: readonly string[],
  onEvent: ((event: TurnEvent) => void) | undefined,
): Promise<StreamedGeneration> {
  let raw = "";
  let shown = "";
  const show = (text: string) => {
    if (text === shown) return;
    const delta = text.startsWith(shown) ? text.slice(shown.length) : undefined;
    shown = text;
    onEvent?.({ type: "text", text, ...(delta !== undefined ? { delta } : {}) });
  };
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "start-step":
        raw = "";
        show("");
        break;
      case "text-delta":
        raw += part.text;
        show(safePrefix(redactText(raw, secrets), secrets));
        break;
      case "tool-call":
        onEvent?.({ type: "status", text: toolStatus(part.toolName, part.input) });
        break;
      case "error":
        throw part.error;
      default:
        break;
    }
  }
  const { event } = finish;
  if (!event) {
    // No finish without an error part means no step finished (stopped, or no output): the steps promise rejects
    // with that reason.
    await result.steps;
    throw new Error("the model's stream ended without finishing a step");
  }
  const { text, response, finishReason, steps, totalUsage } = event;
  return { text, response, finishReason, steps, totalUsage };
}

/** `text` without a tail that a secret starts with, so no part of a secret is shown before it can be redacted. */
function safePrefix(text: string, secrets: readonly string[]): string {
  let cut = text.length;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n > 0; n--) {
      if (text.endsWith(secret.slice(0, n))) {
        cut = Math.min(cut, text.length - n);
        break;
      }
    }
  }
  return text.slice(0, cut);
}

/** "Running tz.py..." for a skill script, "Running schedule_task..." for other tools. */
export function toolStatus(toolName: string, input: unknown): string {
  const script = (input as { script_name?: unknown } | null)?.script_name;
  const label = typeof script === "string" && script !== "" ? basename(script) : toolName;
  return `Running ${label.slice(0, STATUS_LABEL_MAX)}...`;
}
