/**
 * `switchboard doctor`: checks the configuration, the store, the LLM endpoint and each enabled channel's
 * credentials with a live call, and says how to fix what fails; warns about risky access settings.
 */
import { generateText } from "ai";
import { riskySettings } from "./access/risks.js";
import { createModel, llmSetupProblem } from "./agent/llm.js";
import { channelModules } from "./channels/modules.js";
import type { ChannelName } from "./channels/types.js";
import { enabledChannels } from "./config/load.js";
import type { Config } from "./config/schema.js";
import { collectSecrets, redactText } from "./config/secrets.js";
import type { Logger } from "./log.js";
import { checkMcpServers } from "./mcp/doctor.js";
import { createStore } from "./store/index.js";

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do when it failed (or, for a warning, how to make it safe). */
  fix?: string;
  /** Works, but risky: shown as WARN, does not fail the run. */
  warning?: boolean;
}

const LIVE_CALL_TIMEOUT_MS = 15_000;

export async function runDoctor(config: Config, log: Logger): Promise<CheckResult[]> {
  const results: CheckResult[] = [{ name: "config", ok: true, detail: "valid" }];
  results.push(await checkStore(config, log));
  results.push(await checkLlm(config));
  for (const channel of enabledChannels(config)) results.push(await checkChannel(config, channel));
  results.push(...(await checkMcpServers(config.mcp)));
  for (const risk of riskySettings(config)) results.push({ name: "access", ok: true, warning: true, ...risk });
  const secrets = collectSecrets(config);
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
    const store = await createStore({ url: config.store.url, dataDir: config.dataDir, log });
    try {
      await store.ping();
      return store.backend === "sqlite" ? `sqlite in ${config.dataDir}` : "redis answers";
    } finally {
      await store.close();
    }
  });
}

async function checkLlm(config: Config): Promise<CheckResult> {
  const problem = llmSetupProblem(config.llm);
  if (problem) return { name: "llm", ok: false, detail: "not configured", fix: problem };
  return attempt("llm", "check LLM_BASE_URL, LLM_API_KEY and LLM_MODEL; the endpoint must answer a chat request", async () => {
    const result = await generateText({
      model: createModel(config.llm),
      prompt: "Reply with the single word: pong",
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(LIVE_CALL_TIMEOUT_MS),
    });
    return `${config.llm.provider} ${config.llm.model} answered (${result.text.trim().slice(0, 20) || "empty reply"})`;
  });
}

function checkChannel(config: Config, channel: ChannelName): Promise<CheckResult> {
  const module = channelModules[channel];
  return attempt(`channel:${channel}`, module.fix, () => module.check(config));
}
