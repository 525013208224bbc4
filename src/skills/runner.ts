/**
 * Running one skill script in the sandbox (src/sandbox): interpreter by extension, never
 * a shell; the skill folder read-only, a fresh work directory as cwd and HOME; an environment of the allowlist and
 * what the configuration grants the skill; the network only when sandbox.network grants it to the skill.
 */
import { join } from "node:path";
import type { Sandbox, SandboxResult } from "../infra/sandbox/index.js";
import { commandLine } from "./interpreter.js";
import { collectCreatedFiles, type CreatedFile } from "./sandbox.js";

export interface ScriptRun {
  /** The skill's name: sandbox.network is looked up by it. */
  skill: string;
  /** The installed skill folder, mounted read-only. */
  skillDir: string;
  /** Relative to the skill folder, e.g. "scripts/tz.py". */
  file: string;
  args: readonly string[];
  /** What the skill's configuration grants on top of the allowlist. */
  grantedEnv: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

export interface ScriptResult extends SandboxResult {
  /** The files the run left in its work directory. */
  files: CreatedFile[];
  filesTruncated: boolean;
}

/**
 * Runs the script, then hands the result and the host path of the work directory to `afterRun` (to copy files
 * out) before it is removed. Throws when the script cannot be started (unknown interpreter, no sandbox).
 */
export async function runScript<T>(
  sandbox: Sandbox,
  run: ScriptRun,
  afterRun: (result: ScriptResult, workDir: string) => Promise<T>,
): Promise<T> {
  if (!commandLine(run.file, [])) throw new Error(`${run.file} has no known interpreter`);
  const request = {
    command: (paths: { skill: string }) => commandLine(join(paths.skill, run.file), run.args) as { command: string; args: string[] },
    skillDir: run.skillDir,
    env: run.grantedEnv,
    networkName: run.skill,
    timeoutMs: run.timeoutMs,
    maxOutputBytes: run.maxOutputBytes,
    signal: run.signal,
  };
  return sandbox.run(request, async (result, workDir) => {
    const created = await collectCreatedFiles(workDir);
    return afterRun({ ...result, files: created.files, filesTruncated: created.truncated }, workDir);
  });
}
