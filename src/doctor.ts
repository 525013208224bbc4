/**
 * `switchboard doctor`: checks the configuration, the store, the LLM endpoint and each enabled channel's
 * credentials with a live call, and says how to fix what fails; warns about risky access settings.
 */
import { generateText } from "ai";
import { riskySettings } from "./access/risks.js";
import { createModel, llmSetupProblem } from "./agent/llm.js";
import { join } from "node:path";
import type { ChannelModule } from "./channels/module.js";
import { channelSettings, collectSecrets, enabledChannels, type Config } from "./config.js";
import { redactText } from "./infra/config/secrets.js";
import type { Logger } from "./infra/log.js";
import { createStore } from "./infra/store/index.js";
import { checkReachable, sandboxStatus } from "./sandbox/index.js";
import { checkMcpServers } from "./mcp/doctor.js";

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
  // Started first: it spawns processes, and needs nothing the other checks do.
  const sandbox = checkSandbox(config);
  const results: CheckResult[] = [{ name: "config", ok: true, detail: "valid" }];
  results.push(await checkStore(config, log));
  results.push(await checkLlm(config));
  for (const channel of enabledChannels(config)) results.push(await checkChannel(config, channel));
  results.push(await sandbox);
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
    const store = await createStore({ url: config.store.url, keyPrefix: config.store.keyPrefix, dataDir: config.dataDir, log });
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

/** FAIL where bubblewrap cannot work (exec tools are refused then); WARN when the owner turned it off. */
async function checkSandbox(config: Config): Promise<CheckResult> {
  const status = await sandboxStatus(config.sandbox);
  if (!status.ok) return { name: "sandbox", ok: false, detail: `${status.reason}; skill scripts and run_shell are refused`, fix: status.fix };
  if (status.mode === "none") return { name: "sandbox", ok: true, warning: true, detail: status.detail, fix: "set sandbox.mode: bwrap" };
  try {
    await checkReachable(join(config.dataDir, "workspaces", "session"));
  } catch (err) {
    return { name: "sandbox", ok: true, warning: true, detail: `run_shell will fail: ${(err as Error).message}`, fix: "see README, Sandbox" };
  }
  return { name: "sandbox", ok: true, detail: status.detail };
}

function checkChannel(config: Config, module: ChannelModule): Promise<CheckResult> {
  return attempt(`channel:${module.name}`, module.fix, () => module.check(channelSettings(config, module), config));
}
