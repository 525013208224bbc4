/**
 * Whether a session asked the model to reason before answering (enable_thinking), and how the setting becomes the
 * provider's option: Anthropic extended thinking with a token budget, or an OpenAI-compatible reasoning_effort.
 */
import type { generateText } from "ai";
import { z } from "zod";
import { CachedNamespace } from "../infra/store/cached-namespace.js";
import type { Store } from "../infra/store/types.js";

export const THINKING_LEVELS = ["low", "medium", "high"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

const thinkingSettingSchema = z.object({ enabled: z.boolean(), level: z.enum(THINKING_LEVELS) });
export type ThinkingSetting = z.infer<typeof thinkingSettingSchema>;

/** Anthropic's budget per level; its minimum is 1,024 tokens. */
export const ANTHROPIC_BUDGET_TOKENS: Record<ThinkingLevel, number> = { low: 2_048, medium: 8_192, high: 24_576 };

/** The AI SDK's per-provider options, as generateText takes them. */
export type ProviderOptions = NonNullable<Parameters<typeof generateText>[0]["providerOptions"]>;

export type ReasoningProvider = "anthropic" | "openai-compatible";

/** The provider options that turn reasoning on, keyed as the AI SDK providers read them. */
export function reasoningProviderOptions(provider: ReasoningProvider, level: ThinkingLevel): ProviderOptions {
  if (provider === "anthropic") return { anthropic: { thinking: { type: "enabled", budgetTokens: ANTHROPIC_BUDGET_TOKENS[level] } } };
  return { openaiCompatible: { reasoningEffort: level } };
}

/** Read on every turn when the model can reason, rarely set; a change made elsewhere is seen within the TTL. */
const CACHE = { topic: "sessions.thinking-changed", ttlMs: 30_000, max: 2_000 };

export class ThinkingSettings {
  private readonly records: CachedNamespace<unknown>;

  constructor(store: Store) {
    this.records = new CachedNamespace(store.namespace<unknown>("sessions"), store.bus, CACHE);
  }

  /** The session's setting; off when never set (or unreadable). */
  async get(sessionKey: string): Promise<ThinkingSetting> {
    const parsed = thinkingSettingSchema.safeParse(await this.records.get(keyOf(sessionKey)));
    return parsed.success ? parsed.data : { enabled: false, level: "medium" };
  }

  async set(sessionKey: string, setting: ThinkingSetting): Promise<void> {
    await this.records.set(keyOf(sessionKey), setting);
  }
}

function keyOf(sessionKey: string): string {
  return `${sessionKey}#thinking`;
}
