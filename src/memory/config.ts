/** The `memory` section of the configuration. Every field has a default, so `memory: {}` is a working setup. */
import { z } from "zod";

const positive = z.number().int().positive();

export const embeddingsConfigSchema = z.strictObject({
  /** An OpenAI-compatible API root (…/v1); its POST /embeddings turns text into vectors. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).nullable().default(null),
  model: z.string().min(1).default("text-embedding-3-small"),
  /** Below this cosine similarity a memory does not count as related to the query by meaning alone. */
  minSimilarity: z.number().min(-1).max(1).default(0.3),
  timeoutMs: positive.default(10_000),
});

export const memoryConfigSchema = z
  .strictObject({
    /** Off: no memory or profile tools, no /memory or /forget, nothing recalled into the prompt. */
    enabled: z.boolean().default(true),
    /** Memories one user (or one group chat) may keep; add_memory refuses more until some are forgotten. */
    maxPerOwner: z.number().int().min(1).max(100_000).default(2_000),
    /** Longest memory, in characters. */
    maxChars: z.number().int().min(20).max(4_000).default(500),
    /** Budget of the relevant memories in the system prompt, in tokens. */
    promptTokenBudget: z.number().int().min(0).default(400),
    /** At most this many memories in the system prompt. */
    promptMaxItems: z.number().int().min(0).max(50).default(6),
    /** Memories whose search indexes stay in this process's memory (least recently used ones are dropped). */
    cacheMaxMemories: positive.default(100_000),
    /** Let compaction propose facts from the summarized turns, kept as memories of the chat's sender. */
    fromCompaction: z.boolean().default(true),
    /** null = full-text search only; set it for hybrid ranking (full text and vectors). */
    embeddings: embeddingsConfigSchema.nullable().default(null),
  })
  .prefault({});

export type MemoryConfig = z.output<typeof memoryConfigSchema>;
export type EmbeddingsConfig = z.output<typeof embeddingsConfigSchema>;
