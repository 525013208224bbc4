/**
 * What the set-up settles, and what follows from it: the configuration it would start with (for the live checks,
 * before anything is written) and the changes to the two files. Secrets go to `.env` only; the YAML gets the rest.
 */
import { existsSync } from "node:fs";
import type { ChannelModule } from "../channels/module.js";
import { channelModules } from "../channels/modules.js";
import { collectSecrets, loadConfig, type Config } from "../config.js";
import { redactText } from "../infra/config/secrets.js";
import type { Locale } from "../core/locales.js";
import type { SetupFiles } from "./files.js";
import type { ProviderChoice } from "./providers.js";

export interface SetupAnswers {
  provider: ProviderChoice;
  baseUrl: string;
  model: string;
  /** The model's key; undefined keeps what `.env` has. */
  llmKey?: string | undefined;
  /** The platforms chosen, each with its credentials by variable name (a value left out keeps what `.env` has). */
  channels: Map<string, Record<string, string>>;
  /** `channel:userId`; undefined keeps the configured owners. */
  owners?: string[] | undefined;
  /** `i18n.default`, the language people are answered in when nothing tells theirs; undefined keeps it. */
  defaultLocale?: Locale | undefined;
}

/** The platforms the set-up offers: those that need credentials (WebChat needs none). */
export const SETUP_CHANNELS: readonly ChannelModule[] = channelModules.filter((module) => module.credentials.length > 0);

/** `.env`'s changes: the key and the chosen platforms' credentials set, those of platforms not chosen removed. */
export function envChanges(answers: SetupAnswers): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  if (answers.llmKey !== undefined) changes.LLM_API_KEY = answers.llmKey;
  for (const module of SETUP_CHANNELS) {
    const given = answers.channels.get(module.name);
    for (const { env } of module.credentials) {
      if (!given) changes[env] = null;
      else if (given[env] !== undefined) changes[env] = given[env];
    }
  }
  return changes;
}

/** The configuration file's changes. */
export function settingChanges(answers: SetupAnswers): Array<[string[], unknown]> {
  const settings: Array<[string[], unknown]> = [
    [["llm", "provider"], answers.provider.provider],
    [["llm", "baseUrl"], answers.baseUrl],
    [["llm", "model"], answers.model],
  ];
  if (answers.owners !== undefined) settings.push([["access", "owners"], answers.owners]);
  if (answers.defaultLocale !== undefined) settings.push([["i18n", "default"], answers.defaultLocale]);
  return settings;
}

/** The configuration the gateway would load once the files are written (the environment's own values yield to them). */
export function candidateConfig(files: SetupFiles, answers: SetupAnswers): Config {
  const env: NodeJS.ProcessEnv = { ...process.env, ...files.env };
  for (const [name, value] of Object.entries(envChanges(answers))) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  Object.assign(env, { LLM_PROVIDER: answers.provider.provider, LLM_BASE_URL: answers.baseUrl, LLM_MODEL: answers.model });
  const config = loadConfig({ configPath: existsSync(files.configPath) ? files.configPath : undefined, env });
  if (answers.owners !== undefined) config.access.owners = answers.owners;
  return config;
}

/** A check's words with the candidate's secrets taken out. */
export function redactedFor(config: Config, text: string): string {
  return redactText(text, collectSecrets(config));
}
