/** Text to vectors through an OpenAI-compatible /embeddings endpoint, with the AI SDK. */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, type EmbeddingModel } from "ai";
import type { EmbeddingsConfig } from "./config.js";

export interface Embedder {
  /** One vector per text, in order; rejects when the endpoint fails or times out. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

export function createEmbedder(config: EmbeddingsConfig): Embedder {
  const model: EmbeddingModel = createOpenAICompatible({
    name: "embeddings",
    baseURL: config.baseUrl,
    apiKey: config.apiKey ?? undefined,
  }).embeddingModel(config.model);
  return {
    embed: async (texts) => {
      const { embeddings } = await embedMany({
        model,
        values: [...texts],
        // A failing endpoint costs one request: search goes on by words, a memory is kept without its vector.
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(config.timeoutMs),
      });
      return embeddings;
    },
  };
}
