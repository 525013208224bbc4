import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { problemsOf } from "../helpers/config-problems.js";
import { llmSetupProblem } from "../../src/agent/llm.js";
import { collectSecrets, configSchema, loadConfig } from "../../src/config.js";
import { modelChain, modelEntries, priceOf, primaryName } from "../../src/infra/config/model-entries.js";

const dir = mkdtempSync(join(tmpdir(), "sb-models-"));

function load(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  return loadConfig({ configPath: path, env });
}

describe("model entries in the configuration", () => {
  it("makes the entry default of the single-model keys and the LLM_* variables, primary unless llm.primary says otherwise", () => {
    const config = load("llm:\n  prices: {input: 0.15, output: 0.6}\n", { LLM_BASE_URL: "http://127.0.0.1:1/v1", LLM_MODEL: "gpt-4o-mini", LLM_API_KEY: "sk-env-key" });
    expect(modelEntries(config.llm)).toEqual([
      expect.objectContaining({ name: "default", provider: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1", model: "gpt-4o-mini", apiKey: "sk-env-key" }),
    ]);
    expect(primaryName(config.llm)).toBe("default");
    expect(priceOf(config.llm, "default")).toEqual({ input: 0.15, cachedInput: null, output: 0.6 });
    expect(llmSetupProblem(config.llm)).toBeNull();

    const other = load(
      "llm:\n  model: m\n  baseUrl: http://127.0.0.1:1/v1\n  primary: big\n  fallbacks: [default]\n  models:\n    big: {provider: anthropic, apiKey: sk-ant-entry-key, model: claude, contextWindow: 200000, prices: {input: 3, cachedInput: 0.3, output: 15}}\n",
    );
    expect(modelChain(other.llm).map((entry) => entry.name)).toEqual(["big", "default"]);
    expect(priceOf(other.llm, "big")).toEqual({ input: 3, cachedInput: 0.3, output: 15 });
    expect(priceOf(other.llm, "nothing")).toBeNull();
    // Every entry's key is a secret.
    expect(collectSecrets(other)).toContain("sk-ant-entry-key");
  });

  it("refuses a fallback or a primary naming an unknown entry, and an entry it cannot call, with clear lines", () => {
    const problems = problemsOf(() =>
      load("llm:\n  model: m\n  baseUrl: http://127.0.0.1:1/v1\n  primary: bigg\n  fallbacks: [backup]\n  models:\n    big: {model: x}\n"),
    );
    expect(problems).toEqual([
      'llm.primary = "bigg": no such model entry (the entries are default, big)',
      'llm.fallbacks names "backup": no such model entry (the entries are default, big)',
      "llm.models.big (openai-compatible): set llm.models.big.baseUrl",
    ]);
  });

  it("hides an entry's key in the error about it", () => {
    const problems = problemsOf(() => load("llm:\n  models:\n    big: {baseUrl: http://127.0.0.1:1/v1, model: x, apiKey: 12}\n"));
    expect(problems).toEqual(["llm.models.big.apiKey = [REDACTED]: expected string"]);
  });

  it("runs with the entries alone, and says what an incomplete default still needs", () => {
    const llm = configSchema.parse({ llm: { models: { only: { baseUrl: "http://127.0.0.1:1/v1", model: "x" } } } }).llm;
    expect(modelChain(llm).map((entry) => entry.name)).toEqual(["only"]);
    expect(llmSetupProblem(llm)).toBeNull();
    expect(llmSetupProblem(configSchema.parse({ llm: { fallbacks: ["nope"] } }).llm)).toBe('llm.fallbacks names "nope": no such model entry (no entry is configured)');
    expect(llmSetupProblem(configSchema.parse({ llm: { provider: "anthropic" } }).llm)).toBe("set LLM_API_KEY (llm.apiKey) and LLM_MODEL (llm.model)");
  });
});
