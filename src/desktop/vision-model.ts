/** The gateway's configured model as an image question (AskVision), with the AI SDK providers the agent uses too. */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type LanguageModel } from "ai";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { modelTelemetry } from "../infra/tracing.js";
import type { AskVision } from "./vision.js";

/** Null unless llm.vision is on and the model is fully configured. */
export function visionModelOf(llm: CoreConfig["llm"]): AskVision | null {
  if (!llm.vision || llm.model === null) return null;
  let model: LanguageModel;
  if (llm.provider === "anthropic") {
    if (llm.apiKey === null) return null;
    model = createAnthropic({ apiKey: llm.apiKey, ...(llm.baseUrl !== null ? { baseURL: llm.baseUrl } : {}) })(llm.model);
  } else {
    if (llm.baseUrl === null) return null;
    model = createOpenAICompatible({ name: "vision", baseURL: llm.baseUrl, apiKey: llm.apiKey ?? undefined, includeUsage: true }).chatModel(llm.model);
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
