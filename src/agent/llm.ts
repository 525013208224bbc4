/**
 * The language model behind the agent, built from the `llm` settings with the AI SDK providers.
 * Every HTTP request to the model gets the configured timeout here, so a hanging endpoint cannot hold a turn
 * (or a summary, or `doctor`) forever, and the time tools take does not count against it.
 */
import { APICallError, RetryError, type LanguageModel } from "ai";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { Logger } from "../infra/log.js";
import { providerModel } from "./wire/index.js";

export type LlmConfig = CoreConfig["llm"];

/** What must still be set before the model can be used, or null when the settings are complete. */
export function llmSetupProblem(llm: LlmConfig): string | null {
  const required: Array<[value: string | null, setting: string]> =
    llm.provider === "anthropic"
      ? [
          [llm.apiKey, "LLM_API_KEY (llm.apiKey)"],
          [llm.model, "LLM_MODEL (llm.model)"],
        ]
      : [
          [llm.baseUrl, "LLM_BASE_URL (llm.baseUrl)"],
          [llm.model, "LLM_MODEL (llm.model)"],
        ];
  const missing = required.filter(([value]) => value === null).map(([, setting]) => setting);
  return missing.length === 0 ? null : `set ${missing.join(" and ")}`;
}

/** Throws when the settings are incomplete (see llmSetupProblem). */
export function createModel(llm: LlmConfig): LanguageModel {
  const problem = llmSetupProblem(llm);
  if (problem !== null || llm.model === null) throw new Error(`The language model is not configured: ${problem}`);
  return providerModel({ ...llm, model: llm.model });
}

/**
 * Sends the AI SDK's provider warnings (unsupported settings and the like) to `log`. By default the SDK prints them
 * to the console, where they would mix with the JSON log lines. Process-wide: call once at start-up.
 */
export function routeSdkWarnings(log: Logger): void {
  globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) => {
    log.warn({ provider, model, warnings }, "language model warnings");
  };
}

const MAX_RESPONSE_BODY_CHARS = 500;

/**
 * What to log about a failed model call: the kind of failure, status, URL and the start of the response body.
 * Deliberately not the error object itself: the AI SDK's errors carry the whole request, chat text included.
 */
export function describeLlmError(err: unknown): Record<string, unknown> {
  const last = RetryError.isInstance(err) ? err.lastError : err;
  const attempts = RetryError.isInstance(err) ? err.errors.length : undefined;
  if (APICallError.isInstance(last)) {
    return {
      name: last.name,
      message: last.message,
      statusCode: last.statusCode,
      url: last.url,
      responseBody: last.responseBody?.slice(0, MAX_RESPONSE_BODY_CHARS),
      cause: causeMessage(last.cause),
      attempts,
    };
  }
  if (!(last instanceof Error)) return { message: String(last), attempts };
  return { name: last.name, message: last.message, cause: causeMessage(last.cause), attempts };
}

function causeMessage(cause: unknown): string | undefined {
  if (cause === undefined || cause === null) return undefined;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const inner = causeMessage(cause.cause);
    return `${cause.name}: ${cause.message}${typeof code === "string" ? ` (${code})` : ""}${inner ? `; ${inner}` : ""}`;
  }
  return String(cause);
}
