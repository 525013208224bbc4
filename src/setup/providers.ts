/** The model providers the set-up offers, with their OpenAI-compatible (or Anthropic) endpoints and a first model. */
import type { Translate } from "../core/i18n.js";

/** Shown by its name in the catalogs' `setup.providers.<id>`. */
export interface ProviderChoice {
  id: string;
  provider: "openai-compatible" | "anthropic";
  /** null: the user types it (a custom endpoint). */
  baseUrl: string | null;
  model: string;
}

export const PROVIDERS: readonly ProviderChoice[] = [
  { id: "openai", provider: "openai-compatible", baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" },
  { id: "anthropic", provider: "anthropic", baseUrl: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5" },
  { id: "deepseek", provider: "openai-compatible", baseUrl: "https://api.deepseek.com/v1", model: "deepseek-chat" },
  { id: "openrouter", provider: "openai-compatible", baseUrl: "https://openrouter.ai/api/v1", model: "openai/gpt-4o-mini" },
  { id: "qwen", provider: "openai-compatible", baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1", model: "qwen-plus" },
  { id: "moonshot", provider: "openai-compatible", baseUrl: "https://api.moonshot.cn/v1", model: "moonshot-v1-8k" },
  { id: "zhipu", provider: "openai-compatible", baseUrl: "https://open.bigmodel.cn/api/paas/v4", model: "glm-4-flash" },
  { id: "groq", provider: "openai-compatible", baseUrl: "https://api.groq.com/openai/v1", model: "llama-3.3-70b-versatile" },
  { id: "ollama", provider: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2" },
  { id: "custom", provider: "openai-compatible", baseUrl: null, model: "" },
];

export function providerById(id: string, t: Translate): ProviderChoice {
  const found = PROVIDERS.find((p) => p.id === id);
  if (!found) throw new Error(t("setup.providers.unknown", { id, ids: PROVIDERS.map((p) => p.id).join(", ") }));
  return found;
}
