/**
 * `switchboard doctor`: checks the configuration, the store (on Redis: with the live replicas), the LLM endpoint and each enabled channel's
 * credentials with a live call, then each feature's own checks (the sandbox, MCP servers, risky access settings), and
 * says how to fix what fails.
 */
import { generateText } from "ai";
import { createModel, llmSetupProblem } from "./agent/llm.js";
import { failoverKind } from "./agent/model-health.js";
import { DEFAULT_ENTRY } from "./infra/config/model-entries.js";
import type { ChannelModule } from "./channels/module.js";
import { channelModules } from "./channels/modules.js";
import { channelSettings, collectSecrets, enabledChannels, featureSettings, type Config, type Modules } from "./config.js";
import type { CheckResult } from "./features/module.js";
import { featureModules } from "./features/modules.js";
import { redactText } from "./infra/config/secrets.js";
import type { Logger } from "./infra/log.js";
import { createStore } from "./infra/store/index.js";
import { listReplicas } from "./replicas.js";

export type { CheckResult } from "./features/module.js";

const LIVE_CALL_TIMEOUT_MS = 15_000;

export async function runDoctor(config: Config, log: Logger, modules: Modules = {}): Promise<CheckResult[]> {
  const { channels = channelModules, features = featureModules } = modules;
  // Started first: some spawn processes (the sandbox's probe), and need nothing the other checks do.
  const featureChecks = features.map((module) => module.doctor?.(featureSettings(config, module), config, log) ?? Promise.resolve([]));
  const results: CheckResult[] = [{ name: "config", ok: true, detail: "valid" }];
  results.push(await checkStore(config, log));
  results.push(...(await checkLlm(config)));
  for (const channel of enabledChannels(config, channels)) results.push(await checkChannel(config, channel));
  for (const checks of featureChecks) results.push(...(await checks));
  const secrets = collectSecrets(config, modules);
  return results.map((r) => ({ ...r, detail: redactText(r.detail, secrets) }));
}

export function formatDoctor(results: CheckResult[]): string {
  return results
    .map((r) => {
      const status = !r.ok ? "FAIL" : r.warning ? "WARN" : "OK  ";
      const fix = (!r.ok || r.warning) && r.fix ? `\n     fix: ${r.fix}` : "";
      return `${status} ${r.name.padEnd(16)} ${r.detail}${fix}`;
    })
    .join("\n");
}

async function attempt(name: string, fix: string, check: () => Promise<string>): Promise<CheckResult> {
  try {
    return { name, ok: true, detail: await check() };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message, fix };
  }
}

function checkStore(config: Config, log: Logger): Promise<CheckResult> {
  return attempt("store", "check store.url / REDIS_URL, or that the data dir is writable", async () => {
    const store = await createStore({ url: config.store.url, dataDir: config.dataDir, log, keyPrefix: config.store.keyPrefix });
    try {
      await store.ping();
      if (store.backend === "sqlite") return `sqlite in ${config.dataDir}`;
      const live = await listReplicas(store);
      const listed = live.map((r) => (r.leases.length > 0 ? `${r.id} (holds ${r.leases.join(", ")})` : r.id));
      return `redis answers; ${live.length} live replica${live.length === 1 ? "" : "s"}${listed.length > 0 ? `: ${listed.join(", ")}` : ""}`;
    } finally {
      await store.close();
    }
  });
}

/** One live call to each model of the chain, on its own: a fallback with a refused key shows before it is needed. */
async function checkLlm(config: Config): Promise<CheckResult[]> {
  const problem = llmSetupProblem(config.llm);
  if (problem) return [{ name: "llm", ok: false, detail: "not configured", fix: problem }];
  const { links } = createModel(config.llm);
  const only = links.length === 1 && links[0]!.entry.name === DEFAULT_ENTRY;
  return Promise.all(
    links.map(async ({ entry, model }): Promise<CheckResult> => {
      const name = only ? "llm" : `llm:${entry.name}`;
      const keys = entry.name === DEFAULT_ENTRY ? "LLM_BASE_URL, LLM_API_KEY and LLM_MODEL" : `llm.models.${entry.name}.baseUrl, apiKey and model`;
      try {
        const result = await generateText({ model, prompt: "Reply with the single word: pong", maxRetries: 0, abortSignal: AbortSignal.timeout(LIVE_CALL_TIMEOUT_MS) });
        return { name, ok: true, detail: `${entry.provider} ${entry.model} answered (${result.text.trim().slice(0, 20) || "empty reply"})` };
      } catch (err) {
        const refused = failoverKind(err) === "refused";
        const key = entry.name === DEFAULT_ENTRY ? "LLM_API_KEY (llm.apiKey)" : `llm.models.${entry.name}.apiKey`;
        const detail = `${entry.provider} ${entry.model}: ${refused ? "credentials refused: " : ""}${(err as Error).message}`;
        return { name, ok: false, detail, fix: refused ? `check ${key}; the provider refused it` : `check ${keys}; the endpoint must answer a chat request` };
      }
    }),
  );
}

function checkChannel(config: Config, module: ChannelModule): Promise<CheckResult> {
  return attempt(`channel:${module.name}`, module.fix, () => module.check(channelSettings(config, module), config));
}
