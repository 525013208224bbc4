/** What a model call costs: its tokens at the model's prices (currency units per million tokens). */
import type { ModelUsage } from "../core/usage-port.js";

export interface Prices {
  input: number;
  /** Cached input tokens; the input price when absent. */
  cachedInput?: number | undefined;
  output: number;
}

/** The prices of a model by the name a call used; undefined for a model without prices (it costs 0). */
export type PriceOf = (model: string) => Prices | undefined;

export function costOf(usage: Pick<ModelUsage, "inputTokens" | "cachedInputTokens" | "outputTokens">, prices: Prices | undefined): number {
  if (!prices) return 0;
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const perToken = (usage.inputTokens - cached) * prices.input + cached * (prices.cachedInput ?? prices.input) + usage.outputTokens * prices.output;
  return perToken / 1_000_000;
}

/**
 * The one place a model's prices are looked up: today `llm.prices` for the configured `llm.model`. A gateway with
 * several named models points this at their entries.
 */
export function priceLookup(llm: { model: string | null; prices: Prices | null }): PriceOf {
  return (model) => (model === llm.model ? (llm.prices ?? undefined) : undefined);
}
