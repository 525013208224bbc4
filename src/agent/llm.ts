/**
 * The language model behind the agent, built from the `llm` settings with the AI SDK providers.
 * Every HTTP request to the model gets the configured timeout here, so a hanging endpoint cannot hold a turn
 * (or a summary, or `doctor`) forever, and the time tools take does not count against it.
 */
import { APICallError, RetryError, wrapLanguageModel } from "ai";
import { systemClock, type Clock } from "../core/clock.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { entryProblem, modelChain, modelConfigProblems, modelEntries, type ModelEntry } from "../infra/config/model-entries.js";
import type { Logger } from "../infra/log.js";
import { AnswerCutShort, ModelChain } from "./model-chain.js";
import { ModelHealth } from "./model-health.js";
import { providerModel, type ModelV3 } from "./wire/index.js";

export type LlmConfig = CoreConfig["llm"];

/** What must still be set before the models can be used, or null when the settings are complete. */
export function llmSetupProblem(llm: LlmConfig): string | null {
  const naming = modelConfigProblems(llm);
  if (naming.length > 0) return naming.join("; ");
  const chain = modelChain(llm);
  if (chain.length === 0) {
    const connection = llm.provider === "anthropic" ? (llm.apiKey === null ? "LLM_API_KEY (llm.apiKey)" : null) : llm.baseUrl === null ? "LLM_BASE_URL (llm.baseUrl)" : null;
    return `set ${[connection, "LLM_MODEL (llm.model)"].filter((setting) => setting !== null).join(" and ")}`;
  }
  const missing = chain.map(entryProblem).filter((problem) => problem !== null);
  return missing.length === 0 ? null : missing.join("; ");
}

export interface ModelOptions {
  /** What cooldowns are counted on (tests pass their own). */
  clock?: Clock;
  /** Where a failover is noted. */
  log?: Logger;
}

/** The chain of the configured models (model-chain.ts). Throws when the settings are incomplete (see llmSetupProblem). */
export function createModel(llm: LlmConfig, opts: ModelOptions = {}): ModelChain {
  const problem = llmSetupProblem(llm);
  if (problem !== null) throw new Error(`The language model is not configured: ${problem}`);
  const chain = modelChain(llm);
  const entries = new Map(modelEntries(llm).map((entry) => [entry.name, { provider: entry.provider, model: entry.model }]));
  const health = new ModelHealth(opts.clock ?? systemClock, llm.cooldownSeconds * 1000, entries);
  const mixed = new Set(chain.map((entry) => entry.provider)).size > 1;
  const links = chain.map((entry) => ({ entry, model: entryModel(entry, llm.timeoutMs, mixed) }));
  return new ModelChain(links, health, opts.log);
}

/**
 * The entry's provider model. In a chain that mixes providers the prompt is shaped for the primary; an
 * OpenAI-compatible entry then gets the system messages joined into one (some chat templates refuse a second).
 */
function entryModel(entry: ModelEntry, timeoutMs: number, mixed: boolean): ModelV3 {
  const model = providerModel({ ...entry, timeoutMs });
  if (!mixed || entry.provider !== "openai-compatible") return model;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      transformParams: async ({ params }) => {
        const system = params.prompt.filter((message) => message.role === "system");
        if (system.length < 2) return params;
        const rest = params.prompt.filter((message) => message.role !== "system");
        return { ...params, prompt: [{ role: "system", content: system.map((message) => message.content).join("\n\n") }, ...rest] };
      },
    },
  });
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
  if (AnswerCutShort.isCutShort(err)) return { ...describeLlmError(err.cause), cutShort: true };
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
