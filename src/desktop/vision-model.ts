/** The gateway's configured model as an image question (AskVision), with the AI SDK providers the agent uses too. */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type LanguageModel } from "ai";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { primaryEntry } from "../infra/config/model-entries.js";
import { modelTelemetry } from "../infra/tracing.js";
import type { AskVision } from "./vision.js";

/** Null unless the primary model entry has vision on and is fully configured. */
export function visionModelOf(llm: CoreConfig["llm"]): AskVision | null {
  const primary = primaryEntry(llm);
  if (!primary?.vision) return null;
  let model: LanguageModel;
  if (primary.provider === "anthropic") {
    if (primary.apiKey === null) return null;
    model = createAnthropic({ apiKey: primary.apiKey, ...(primary.baseUrl !== null ? { baseURL: primary.baseUrl } : {}) })(primary.model);
  } else {
    if (primary.baseUrl === null) return null;
    model = createOpenAICompatible({ name: "vision", baseURL: primary.baseUrl, apiKey: primary.apiKey ?? undefined, includeUsage: true }).chatModel(primary.model);
  }
  return async (prompt, png) => {
    const result = await generateText({
      model,
      maxRetries: llm.maxRetries,
      abortSignal: AbortSignal.timeout(llm.timeoutMs),
      experimental_telemetry: modelTelemetry("desktop-vision"),
      messages: [{ role: "user", content: [{ type: "text", text: prompt }, { type: "image", image: png, mediaType: "image/png" }] }],
    });
    return { text: result.text, totalTokens: result.usage.totalTokens };
  };
}
