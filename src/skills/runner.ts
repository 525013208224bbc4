/**
 * Running one skill script (seed 002, section 5): execa without a shell, interpreter by extension, a fresh run
 * directory (see sandbox.ts), an environment built from a small allowlist, a wall-clock limit that kills the
 * whole process group, and stdout/stderr each capped with the truncation marked.
 */
import { execa } from "execa";
import { join } from "node:path";
import { commandLine } from "./interpreter.js";
import { collectCreatedFiles, createRunDirectory, type CreatedFile, type RunDirectory } from "./sandbox.js";

export interface ScriptRun {
  /** The installed skill folder; the script runs from a copy of it. */
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

export interface ScriptResult {
  /** null when the process was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** The files the run left in its work directory. */
  files: CreatedFile[];
  filesTruncated: boolean;
}

/**
 * Runs the script, then hands the result and the run directory to `afterRun` (to copy files out) before the run
 * directory is removed. Throws only when the script cannot be started at all.
 */
export async function runScript<T>(
  run: ScriptRun,
  afterRun: (result: ScriptResult, dirs: RunDirectory) => Promise<T>,
): Promise<T> {
  const dirs = await createRunDirectory(run.skillDir);
  try {
    const result = await execute(run, dirs);
    return await afterRun(result, dirs);
  } finally {
    await dirs.dispose();
  }
}

/** The script's whole environment: nothing of the gateway's own (API keys, tokens) is inherited. */
function scriptEnvironment(dirs: RunDirectory, granted: Readonly<Record<string, string>>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: process.env.LANG ?? "C.UTF-8",
    ...granted,
    HOME: dirs.workDir,
    TMPDIR: dirs.tmpDir,
    SKILL_DIR: dirs.skillDir,
  };
}

async function execute(run: ScriptRun, dirs: RunDirectory): Promise<ScriptResult> {
  const command = commandLine(join(dirs.skillDir, run.file), run.args);
  if (!command) throw new Error(`${run.file} has no known interpreter`);
  const started = performance.now();
  const child = execa(command.command, command.args, {
    cwd: dirs.workDir,
    env: scriptEnvironment(dirs, run.grantedEnv),
    extendEnv: false,
    shell: false,
    stdin: "ignore",
    buffer: false,
    reject: false,
    // Its own process group, so that one kill reaches everything the script started.
    detached: true,
  });
  const stdout = new CappedOutput(run.maxOutputBytes);
  const stderr = new CappedOutput(run.maxOutputBytes);
  child.stdout?.on("data", (chunk: Buffer) => stdout.add(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.add(chunk));

  let timedOut = false;
  let cancelled = false;
  const killGroup = () => killProcessGroup(child.pid);
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, run.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    killGroup();
  };
  run.signal?.addEventListener("abort", onAbort, { once: true });
  if (run.signal?.aborted) onAbort();
  // Background children would keep the pipes open after the script exits: end them with it.
  child.once("exit", killGroup);

  const outcome = await child;
  clearTimeout(timer);
  run.signal?.removeEventListener("abort", onAbort);
  const durationMs = Math.round(performance.now() - started);
  if (outcome.exitCode === undefined && outcome.signal === undefined) {
    throw new Error(`cannot start ${command.command} for ${run.file}: ${outcome.shortMessage}`);
  }
  const created = await collectCreatedFiles(dirs.workDir);
  return {
    exitCode: outcome.exitCode ?? null,
    signal: outcome.signal ?? null,
    timedOut,
    cancelled,
    durationMs,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    files: created.files,
    filesTruncated: created.truncated,
  };
}

function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch (err) {
    // ESRCH: the group is gone already.
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

/** Keeps the first `limit` bytes of a stream and counts the rest. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(0, room));
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.truncated ? `${text}\n[output truncated: ${this.dropped} more bytes were dropped]` : text;
  }
}
