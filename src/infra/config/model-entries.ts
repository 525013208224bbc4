/**
 * The language models the `llm` settings name: the entries of `llm.models`, plus the entry `default` made of the
 * single-model keys (`llm.provider`, `llm.baseUrl`, `llm.apiKey`, `llm.model`, the LLM_* variables), and the
 * chain a model call tries them in: `llm.primary` first (default: `default`, else the first entry), then
 * `llm.fallbacks` in order.
 */
import type { CoreConfig, ModelEntrySettings, ModelPrices } from "./core-schema.js";

export type LlmSettings = CoreConfig["llm"];

export const DEFAULT_ENTRY = "default";

export interface ModelEntry extends ModelEntrySettings {
  name: string;
}

/** Every configured entry, `default` first when the single-model keys make one, then `llm.models` in order. */
export function modelEntries(llm: LlmSettings): ModelEntry[] {
  const entries: ModelEntry[] = Object.entries(llm.models).map(([name, entry]) => ({ name, ...entry }));
  if (llm.model === null) return entries;
  const { provider, baseUrl, apiKey, model, vision, reasoning, contextWindow, prices } = llm;
  return [{ name: DEFAULT_ENTRY, provider, baseUrl, apiKey, model, vision, reasoning, contextWindow, prices }, ...entries];
}

/** The name of the entry tried first, or null when there is none. */
export function primaryName(llm: LlmSettings): string | null {
  return llm.primary ?? modelEntries(llm)[0]?.name ?? null;
}

/** The entries in the order a call tries them: the primary, then the fallbacks (each once). */
export function modelChain(llm: LlmSettings): ModelEntry[] {
  const byName = new Map(modelEntries(llm).map((entry) => [entry.name, entry]));
  const primary = primaryName(llm);
  const names = [...new Set([...(primary === null ? [] : [primary]), ...llm.fallbacks])];
  return names.flatMap((name) => byName.get(name) ?? []);
}

/** The entry tried first (its vision and reasoning settings shape a turn's request), or undefined. */
export function primaryEntry(llm: LlmSettings): ModelEntry | undefined {
  return modelChain(llm)[0];
}

/** The prices of the entry `name`, or null when it has none (or there is no such entry). */
export function priceOf(llm: LlmSettings, name: string): ModelPrices | null {
  return modelEntries(llm).find((entry) => entry.name === name)?.prices ?? null;
}

/**
 * The configuration's mistakes about model entries, one line each (an empty list when there are none): a name
 * that names no entry, or an entry of `llm.models` that cannot be called as written. (The `default` entry may be
 * incomplete: the gateway then runs without a model, and says what to set.)
 */
export function modelConfigProblems(llm: LlmSettings): string[] {
  const names = modelEntries(llm).map((entry) => entry.name);
  const known = names.length > 0 ? `the entries are ${names.join(", ")}` : "no entry is configured";
  const problems: string[] = [];
  if (llm.model !== null && DEFAULT_ENTRY in llm.models) {
    problems.push(`llm.models.${DEFAULT_ENTRY}: the name is taken by the single-model keys (llm.model); rename the entry or drop llm.model`);
  }
  if (llm.primary !== null && !names.includes(llm.primary)) problems.push(`llm.primary = ${JSON.stringify(llm.primary)}: no such model entry (${known})`);
  for (const name of llm.fallbacks) {
    if (!names.includes(name)) problems.push(`llm.fallbacks names ${JSON.stringify(name)}: no such model entry (${known})`);
  }
  for (const entry of modelEntries(llm)) {
    const problem = entry.name === DEFAULT_ENTRY ? null : entryProblem(entry);
    if (problem !== null) problems.push(`llm.models.${entry.name} (${entry.provider}): ${problem}`);
  }
  return problems;
}

/** What must still be set before the entry can be called, or null when it is complete. */
export function entryProblem(entry: ModelEntry): string | null {
  const own = entry.name === DEFAULT_ENTRY;
  if (entry.provider === "anthropic") {
    if (entry.apiKey !== null) return null;
    return own ? "set LLM_API_KEY (llm.apiKey)" : `set llm.models.${entry.name}.apiKey`;
  }
  if (entry.baseUrl !== null) return null;
  return own ? "set LLM_BASE_URL (llm.baseUrl)" : `set llm.models.${entry.name}.baseUrl`;
}
