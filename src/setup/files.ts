/**
 * The files the set-up writes: the configuration (YAML, edited in place so the user's other settings and comments
 * stay) and `.env` beside it with the secrets, readable by its owner only.
 */
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseEnv } from "node:util";
import { parseDocument, type Document } from "yaml";
import type { Translate } from "../core/i18n.js";

export const DEFAULT_CONFIG_FILE = "switchboard.yaml";

export interface SetupFiles {
  configPath: string;
  envPath: string;
  /** The configuration as it is (empty for a new one). */
  config: Document;
  /** The variables `.env` holds now. */
  env: Record<string, string>;
}

/** The configuration at `configPath` (default ./switchboard.yaml) and the `.env` beside it, as they are now. */
export function readSetupFiles(configPath: string | undefined, t: Translate): SetupFiles {
  const path = resolve(configPath ?? DEFAULT_CONFIG_FILE);
  const envPath = join(dirname(path), ".env");
  const config = parseDocument(existsSync(path) ? readFileSync(path, "utf8") : "");
  if (config.errors.length > 0) throw new Error(t("setup.files.invalidYaml", { path, reason: config.errors[0]!.message }));
  const env = existsSync(envPath) ? (parseEnv(readFileSync(envPath, "utf8")) as Record<string, string>) : {};
  return { configPath: path, envPath, config, env };
}

/** Writes both files: settings into the configuration, and `env` (entries set to null are removed) into `.env`, mode 0600. */
export async function writeSetupFiles(files: SetupFiles, settings: Array<[path: string[], value: unknown]>, env: Record<string, string | null>): Promise<void> {
  for (const [path, value] of settings) files.config.setIn(path, value);
  const merged = { ...files.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  await mkdir(dirname(files.configPath), { recursive: true });
  const lines = Object.entries(merged).map(([name, value]) => `${name}=${quoteEnv(value)}`);
  // `.env` first: the configuration written may need its new variables.
  await replaceFile(files.envPath, `# Written by switchboard setup: secrets, readable by this user only.\n${lines.join("\n")}\n`, 0o600);
  await replaceFile(files.configPath, files.config.toString());
}

/**
 * Writes a file beside `path` (a link's target) and renames it over: an interruption leaves the old file or the new
 * one, never half of one, and a `.env` that was readable by others is never so with the secrets in it. Without a
 * `mode`, the file keeps its own.
 */
async function replaceFile(path: string, text: string, mode?: number): Promise<void> {
  const target = await realpath(path).catch(() => path);
  const partial = `${target}.${process.pid}.partial`;
  try {
    const kept = mode ?? (await stat(target).then((found) => found.mode & 0o777, () => undefined));
    await writeFile(partial, text, { mode: kept, flag: "wx" });
    // The mode given to writeFile is narrowed by the umask.
    if (kept !== undefined) await chmod(partial, kept);
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

/** Loads `.env` beside the configuration (or in the cwd) into the environment, keeping variables already set. */
export function loadEnvFile(configPath: string | undefined): void {
  const path = join(dirname(resolve(configPath ?? DEFAULT_CONFIG_FILE)), ".env");
  if (!existsSync(path)) return;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(path, "utf8")))) process.env[name] ??= value;
}

/** Bare when safe, else single-quoted (taken literally); a value with a quote or a line break goes double-quoted. */
function quoteEnv(value: string): string {
  if (/^[\w@%+=:,./-]*$/.test(value)) return value;
  if (!/['\n]/.test(value)) return `'${value}'`;
  return `"${value.replace(/\n/g, "\\n")}"`;
}
