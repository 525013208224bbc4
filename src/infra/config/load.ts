/**
 * Loading the configuration: config/default.yaml, then the user's file, then environment variables,
 * validated by the schema. Every problem becomes one line naming the setting, the bad value and what is allowed.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { suggestToolNames } from "../../core/names.js";
import { isSecretPath, type CoreConfig, type EnvOverride } from "./core-schema.js";
import { packageFile } from "../package-files.js";
import { REDACTED } from "./secrets.js";
import { modelConfigProblems } from "./model-entries.js";

export const DEFAULT_CONFIG_FILE = packageFile("config", "default.yaml");

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export interface LoadConfigOptions {
  /** The user's file (--config); falls back to SWITCHBOARD_CONFIG. */
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

type Tree = Record<string, unknown>;

/** The whole schema (src/config.ts composes it) with what the loader must know about it. */
export interface ConfigSpec<T extends CoreConfig> {
  schema: z.ZodType<T, unknown>;
  envOverrides: Readonly<Record<string, EnvOverride>>;
  secretPaths: readonly string[];
  /** Rules that involve more than one setting; one line per problem. */
  crossChecks(config: T): string[];
}

export function loadConfigWith<T extends CoreConfig>(spec: ConfigSpec<T>, opts: LoadConfigOptions = {}): T {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const userFile = opts.configPath ?? nonEmpty(env.SWITCHBOARD_CONFIG);

  const merged = readYamlFile(DEFAULT_CONFIG_FILE);
  if (userFile) deepMerge(merged, readYamlFile(resolve(cwd, userFile)));
  const fromEnv = applyEnv(merged, env, spec.envOverrides);

  const result = spec.schema.safeParse(merged, { reportInput: true });
  if (!result.success) throw new ConfigError(result.error.issues.map((i) => describeIssue(i, fromEnv, spec.secretPaths)));
  const config = result.data;
  config.dataDir = isAbsolute(config.dataDir) ? config.dataDir : resolve(cwd, config.dataDir);
  const problems = [...coreCrossChecks(config), ...spec.crossChecks(config)];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function readYamlFile(path: string): Tree {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError([`cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`]);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError([`${path} is not valid YAML: ${(err as Error).message.split("\n")[0]}`]);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isTree(parsed)) throw new ConfigError([`${path} must hold a mapping of settings at the top level`]);
  return parsed;
}

function isTree(value: unknown): value is Tree {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function deepMerge(target: Tree, source: Tree): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (isTree(value) && isTree(current)) deepMerge(current, value);
    else target[key] = value;
  }
}

function setPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split(".");
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    if (!isTree(node[part])) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts.at(-1)!] = value;
}

/** Applies the environment overrides; returns which variable set which setting, for error messages. */
function applyEnv(tree: Tree, env: NodeJS.ProcessEnv, overrides: ConfigSpec<CoreConfig>["envOverrides"]): Map<string, string> {
  const sources = new Map<string, string>();
  for (const [name, { path, type }] of Object.entries(overrides)) {
    const raw = nonEmpty(env[name]);
    if (raw === undefined) continue;
    const value = type === "number" && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    setPath(tree, path, value);
    sources.set(path, name);
  }
  return sources;
}

function describeIssue(issue: z.core.$ZodIssue, fromEnv: Map<string, string>, secretPaths: readonly string[]): string {
  const parentPath = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => unknownSettingText(parentPath, key, issue.input)).join("\n");
  }
  const source = fromEnv.get(parentPath);
  const where = source ? `${parentPath} (from ${source})` : parentPath || "(top level)";
  const isSecret = isSecretPath(parentPath, secretPaths);
  const shown = isSecret ? REDACTED : JSON.stringify(issue.input);
  return `${where} = ${shown ?? "undefined"}: ${allowedText(issue)}`;
}

/** "llm.modle: unknown setting; did you mean llm.model?", from the settings its section does have. */
function unknownSettingText(parentPath: string, key: string, section: unknown): string {
  const path = `${parentPath ? `${parentPath}.` : ""}${key}`;
  const known = isTree(section) ? Object.keys(section).filter((name) => name !== key) : [];
  const [closest] = suggestToolNames(key, known, 1);
  const hint = closest ? `did you mean ${parentPath ? `${parentPath}.` : ""}${closest}?` : "check the spelling against config/default.yaml";
  return `${path}: unknown setting; ${hint}`;
}

function allowedText(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_type":
      return `expected ${issue.expected}`;
    case "too_small":
      return `must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || host.startsWith("127.");
}

/** Rules of the core settings that involve more than one of them. */
function coreCrossChecks(config: CoreConfig): string[] {
  const problems = modelConfigProblems(config.llm);
  if (isLoopbackHost(config.http.host) || config.http.token) return problems;
  return [
    ...problems,
    `http.host = ${JSON.stringify(config.http.host)}: binding beyond loopback requires http.token (set SWITCHBOARD_TOKEN) so WebChat and the API are not open to the network`,
  ];
}
