/** What a model call costs: its tokens at the model's prices (currency units per million tokens). */
import type { ModelUsage } from "../core/usage-port.js";
import { priceOf, type LlmSettings } from "../infra/config/model-entries.js";

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

/** The one place a model's prices are looked up: by the name of its entry (`default` for the single-model keys). */
export function priceLookup(llm: LlmSettings): PriceOf {
  return (model) => {
    const prices = priceOf(llm, model);
    return prices ? { input: prices.input, cachedInput: prices.cachedInput ?? undefined, output: prices.output } : undefined;
  };
}
