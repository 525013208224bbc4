/**
 * `switchboard setup --yes`: the same files from flags, for scripts and images. Secrets are named by the variable
 * that holds them (`--llm-key-env LLM_API_KEY`), never given on the command line, where `ps` and shell history
 * would keep them. Every check runs live first; when one fails nothing is written.
 */
import { channelModules } from "../channels/modules.js";
import { checkChannel, checkLlm, type CheckResult } from "../doctor.js";
import type { Locale } from "../core/locales.js";
import { candidateConfig, envChanges, redactedFor, settingChanges, type SetupAnswers } from "./answers.js";
import { readSetupFiles, writeSetupFiles } from "./files.js";
import { setupWords } from "./language.js";
import { providerById } from "./providers.js";

export interface ScriptedOptions {
  configPath?: string | undefined;
  provider: string;
  baseUrl?: string | undefined;
  model?: string | undefined;
  llmKeyEnv?: string | undefined;
  /** Channel name -> credential variable -> the variable that holds its value. */
  credentialEnvs: Map<string, Record<string, string>>;
  owners?: string[] | undefined;
  check: boolean;
  env: NodeJS.ProcessEnv;
  /** The language of the lines and errors; the checks' own details stay the doctor's English. */
  locale: Locale;
}

/** Writes the files; answers the lines to print (the checks' results). Throws, writing nothing, when a check fails. */
export async function runScripted(opts: ScriptedOptions): Promise<string[]> {
  const t = setupWords(opts.locale);
  const choice = providerById(opts.provider, t);
  const baseUrl = opts.baseUrl ?? choice.baseUrl;
  if (!baseUrl) throw new Error(t("setup.scripted.needsBaseUrl", { provider: choice.id }));
  const model = opts.model ?? choice.model;
  if (!model) throw new Error(t("setup.scripted.needsModel", { provider: choice.id }));
  const read = (variable: string, what: string): string => {
    const value = opts.env[variable];
    if (value === undefined || value === "") throw new Error(t("setup.scripted.unset", { what, variable }));
    return value;
  };
  const channels = new Map<string, Record<string, string>>();
  for (const [name, envs] of opts.credentialEnvs) {
    channels.set(name, Object.fromEntries(Object.entries(envs).map(([target, source]) => [target, read(source, t("setup.scripted.credentials", { channel: name }))])));
  }
  const answers: SetupAnswers = {
    provider: choice,
    baseUrl,
    model,
    llmKey: opts.llmKeyEnv === undefined ? undefined : read(opts.llmKeyEnv, "--llm-key-env"),
    channels,
    owners: opts.owners,
  };
  const files = readSetupFiles(opts.configPath, t);
  const config = candidateConfig(files, answers);
  const lines: string[] = [];
  if (opts.check) {
    const results: CheckResult[] = await checkLlm(config);
    for (const name of channels.keys()) results.push(await checkChannel(config, channelModules.find((m) => m.name === name)!));
    for (const r of results) {
      const values = { name: r.name, detail: redactedFor(config, r.detail), fix: r.fix ?? "" };
      lines.push(t(r.ok ? "setup.scripted.ok" : r.fix ? "setup.scripted.failFix" : "setup.scripted.fail", values));
    }
    if (results.some((r) => !r.ok)) throw new Error(`${lines.join("\n")}\n${t("setup.scripted.nothingWritten")}`);
  }
  await writeSetupFiles(files, settingChanges(answers), envChanges(answers));
  lines.push(t("setup.scripted.wrote", { config: files.configPath, env: files.envPath }));
  return lines;
}
