/**
 * The model wire: the one place that reaches below the AI SDK's public API, into the providers' fetch, their
 * stream pipeline, the prompt form of the messages and the SDK's validation of them. The rest of the gateway imports
 * this file only: createModel (agent/llm.ts) builds the providers here, a turn asks withHistoryPrompt for its model
 * and messages, and agent/stream.ts asks liveCompletionsOf for the live path. The AI SDK packages are pinned to exact
 * versions (package.json) and test/agent/wire/request-shape.test.ts fails when an upgrade changes the request bytes.
 *
 * Each part is kept because it is worth more than 3% of the gateway's own CPU per message in `npm run bench
 * telegram` (the builds side by side, BENCH_TG_VERSUS; bench/README.md has the table):
 * - request-fetch.ts, bare-response.ts: model calls over undici's request, answered without fetch's Response;
 * - live-completions.ts, completion-assembly.ts: a watched step streamed through the fetch, not doStream's pipeline;
 * - history-prompt.ts: the history converted once per message, not validated and converted on every call;
 * - the question zod asks of the message schema, answered once (below).
 * The history and the tool definitions put into the request as bytes serialized once (the provider's internal
 * conversions) measured within the noise, and went: the request bytes are the provider's own.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { modelMessageSchema } from "ai";
import { isRecursiveSchema } from "zod/v4/core";
import type { CoreConfig } from "../../infra/config/core-schema.js";
import { LiveCompletions } from "./live-completions.js";
import { requestFetch } from "./request-fetch.js";
import type { ModelV3 } from "./model-call.js";

/**
 * zod (4.5 and later) asks, before a schema's first parse, whether its subtree can recurse, and caches only a
 * certain answer. `generateText` validates its messages with a new `z.array(modelMessageSchema)` on every call, and
 * the question then stops at the message schema's unresolved lazy JSON value: no certain answer, so the whole
 * message schema was walked again on every model call (~35 us and ~110 KiB of garbage). Asking once with the lazy
 * resolved caches the answer (yes: a JSON value holds JSON values); each parse then treats the schema as recursive,
 * as it did before, without the walk.
 */
isRecursiveSchema(modelMessageSchema);

export { withHistoryPrompt, type HistoryPrompt } from "./history-prompt.js";
export { liveCompletionsOf, type GenerateResult, type StreamResult } from "./live-completions.js";
export type { CallOptions, ModelV3 } from "./model-call.js";

/** The settings a provider is made from, complete (createModel checks them first). */
export type ProviderSettings = Pick<CoreConfig["llm"], "provider" | "baseUrl" | "apiKey" | "timeoutMs"> & { model: string };

/** The provider's model for the settings, with its fetch (and, for OpenAI-compatible endpoints, its wire). */
export function providerModel(llm: ProviderSettings): ModelV3 {
  // Every request (body included) gets the configured timeout; the AI SDK does not retry a timeout, so a hanging
  // endpoint costs one, not several.
  const fetch = requestFetch({ timeoutMs: llm.timeoutMs });
  if (llm.provider === "anthropic") {
    return createAnthropic({
      apiKey: llm.apiKey ?? undefined,
      ...(llm.baseUrl !== null ? { baseURL: llm.baseUrl } : {}),
      fetch,
    })(llm.model);
  }
  // A watched step streams through the fetch (LiveCompletions), not through the provider's doStream.
  const name = "llm";
  const live = new LiveCompletions(fetch, name);
  const model = createOpenAICompatible({
    name,
    baseURL: llm.baseUrl ?? "",
    apiKey: llm.apiKey ?? undefined,
    includeUsage: true,
    fetch: live.fetch,
  }).chatModel(llm.model);
  return live.serve(model);
}
