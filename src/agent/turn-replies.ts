/**
 * What a turn answers besides the model's own words: the reply text of a finished run, the notices of a run cut
 * off at its limits, and the apologies of a run that failed, in the person's language.
 */
import { AISDKError, type GenerateTextResult, type ModelMessage, type ToolSet } from "ai";
import type { Speech } from "../core/i18n.js";
import type { TurnInput } from "../core/turn.js";
import { redactText } from "../infra/config/secrets.js";
import { ENGLISH } from "../infra/i18n/index.js";

/** A finished model run: the reply, the messages it adds to the history, how it ended and what it cost. */
export type Generation = GenerateTextResult<ToolSet, never>;

export function llmFailureReply(errorId: string, speech: Speech = ENGLISH): string {
  return speech.t("errors.llm", { errorId });
}

export function stepLimitReply(maxSteps: number, speech: Speech = ENGLISH): string {
  return speech.t("errors.stepLimit", { steps: maxSteps });
}

/** Said to the delegating model, not to a person: English like the rest of the prompt. */
export function tokenLimitReply(maxTokens: number): string {
  return `I stopped after using my budget of ${maxTokens} tokens without finishing.`;
}

export function internalFailureReply(errorId: string, speech: Speech = ENGLISH): string {
  return speech.t("errors.internal", { errorId });
}

/**
 * The reply of a finished run, redacted; a run that stopped mid-task at its step limit (or a helper's at its token
 * budget) answers the limit's notice instead, marked so the person can continue it.
 */
export function generationReply(
  result: Generation,
  input: TurnInput,
  maxSteps: number,
  secrets: readonly string[],
): { text: string; stepLimit: boolean } {
  const speech = input.speech ?? ENGLISH;
  const stoppedMidTask = result.finishReason === "tool-calls";
  if (stoppedMidTask && result.steps.length >= maxSteps) return { text: stepLimitReply(maxSteps, speech), stepLimit: true };
  if (stoppedMidTask && input.delegation) return { text: tokenLimitReply(input.delegation.maxTokens), stepLimit: true };
  const text = redactText(result.text.trim(), secrets);
  return { text: text === "" ? speech.t("errors.emptyAnswer") : text, stepLimit: false };
}

/** The text of the last answer among a stopped turn's finished steps, redacted as a reply is. */
export function lastAnswerText(messages: readonly ModelMessage[], secrets: readonly string[]): string {
  const last = messages.findLast((message) => message.role === "assistant");
  if (!last) return "";
  const text = typeof last.content === "string" ? last.content : last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return redactText(text.trim(), secrets);
}

/** Errors of the model call itself (HTTP, timeout, bad response), as opposed to our own bugs or the store. */
export function isModelFailure(err: unknown): boolean {
  // The timeout of llm.ts's fetch is a DOMException named TimeoutError (an Error in Node).
  return AISDKError.isInstance(err) || (err instanceof Error && err.name === "TimeoutError");
}
