/**
 * One run of untrusted code: a fresh run directory, the program inside bubblewrap (or unconfined in mode none),
 * a wall-clock limit, stdout and stderr each capped, and the run directory removed afterwards. On a timeout or a
 * cancel the sandbox is killed: bwrap's process group, and with it (--die-with-parent, PID namespace) every
 * process the run started, detached or not.
 */
import { cp, lstat, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bwrapArgs, INSIDE, insideEnvironment, type SandboxMounts, type WrappedCommand } from "./bwrap.js";
import { sandboxRuns } from "../metrics.js";
import { CappedOutput } from "./capped-output.js";
import type { SandboxConfig } from "./config.js";
import { checkReachable, dropRootPrefix, handOver } from "./owner.js";
import { SandboxUnavailableError, type RunPaths, type SandboxRequest, type SandboxResult, type SandboxStatus } from "./types.js";

/** After a kill, how long the pipes may stay open before they are closed from our side. */
const DRAIN_AFTER_KILL_MS = 1_000;

/** What a long-running process (a stdio MCP server) is to be started with; see wrapCommand. */
export interface WrapRequest {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  skillDir?: string | undefined;
  workspaceDir?: string | undefined;
  networkName?: string | undefined;
}

/**
 * Runs `request` and hands the result and the host path of the run directory to `afterRun` (to copy files out)
 * before that directory is removed. Throws SandboxUnavailableError when the sandbox does not work, and an Error
 * when the program cannot be started at all.
 */
export async function runSandboxed<T>(
  config: SandboxConfig,
  status: SandboxStatus,
  request: SandboxRequest,
  afterRun: (result: SandboxResult, runDir: string) => Promise<T>,
): Promise<T> {
  if (!status.ok) {
    sandboxRuns.inc({ runtime: status.mode, outcome: "refused" });
    throw new SandboxUnavailableError(status.reason, status.fix);
  }
  const root = await mkdtemp(join(tmpdir(), "switchboard-run-"));
  try {
    const runDir = join(root, "work");
    await mkdir(runDir);
    const skillCopy = request.skillDir === undefined ? undefined : await copySkill(request.skillDir, join(root, "skill"));
    await handOver(root);
    if (request.workspaceDir !== undefined) {
      // The folders above the workspace, when created here, can be passed through by the sandbox user; the
      // workspace itself is private (and, under root, handed over).
      await mkdir(dirname(request.workspaceDir), { recursive: true, mode: 0o711 });
      await mkdir(request.workspaceDir, { recursive: true, mode: 0o700 });
      await checkReachable(request.workspaceDir);
      await handOver(request.workspaceDir);
    }
    const result = await execute(config, { ...request, skillDir: skillCopy }, runDir).catch((err: unknown) => {
      sandboxRuns.inc({ runtime: status.mode, outcome: "failed" });
      throw err;
    });
    sandboxRuns.inc({ runtime: status.mode, outcome: outcomeOf(result) });
    return await afterRun(result, runDir);
  } finally {
    await removeRunDir(root);
  }
}

/** The run's outcome as a metric label: how it ended, not what it printed. */
function outcomeOf(result: SandboxResult): "ok" | "error" | "timeout" | "cancelled" {
  if (result.timedOut) return "timeout";
  if (result.cancelled) return "cancelled";
  return result.exitCode === 0 ? "ok" : "error";
}

/** A run may leave folders it closed to itself (chmod 000), which only root could remove as they are. */
async function removeRunDir(root: string): Promise<void> {
  try {
    await rm(root, { recursive: true, force: true });
  } catch {
    // chmod -R does not follow the symlinks it meets on the way.
    const { execa } = await import("execa");
    await execa("chmod", ["-R", "u+rwX", root], { reject: false });
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The run's own copy of the skill folder, symlinks left out: the installed folder stays unchanged whatever the
 * run does, and root dropping to the sandbox user can read the copy wherever the original lives.
 */
async function copySkill(skillDir: string, copy: string): Promise<string> {
  await cp(skillDir, copy, { recursive: true, filter: async (source) => !(await lstat(source)).isSymbolicLink() });
  return copy;
}

/**
 * The command line that starts a long-running process in the sandbox, for the caller to spawn (and kill) itself.
 * It has no run directory: HOME is the private /tmp.
 */
export function wrapCommand(config: SandboxConfig, status: SandboxStatus, request: WrapRequest): WrappedCommand {
  if (!status.ok) throw new SandboxUnavailableError(status.reason, status.fix);
  const mounts = mountsOf(config, request, undefined);
  const env = insideEnvironment(mounts, request.env ?? {});
  if (config.mode === "none") return { command: request.command, args: [...request.args], env };
  return { ...confinedCommand(mounts, config, env, request.command, request.args), env: {} };
}

/** bwrap with its arguments, after setpriv when root must drop to the sandbox user first. */
export function confinedCommand(
  mounts: SandboxMounts,
  config: SandboxConfig,
  env: Readonly<Record<string, string>>,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  const [first, ...rest] = [...dropRootPrefix(), "bwrap", ...bwrapArgs(mounts, config.limits, env, command, args)];
  return { command: first as string, args: rest };
}

function mountsOf(config: SandboxConfig, request: WrapRequest | SandboxRequest, runDir: string | undefined): SandboxMounts {
  const network = request.networkName !== undefined && config.network[request.networkName] === "all";
  return { skillDir: request.skillDir, workspaceDir: request.workspaceDir, runDir, network };
}

async function execute(config: SandboxConfig, request: SandboxRequest, runDir: string): Promise<SandboxResult> {
  const mounts = mountsOf(config, request, runDir);
  const start = config.mode === "none" ? unconfined(request, mounts) : confined(config, request, mounts);
  // Loaded on first use, not at start: execa's module graph is about a hundred files.
  const { execa } = await import("execa");
  const started = performance.now();
  const child = execa(start.command, start.args, {
    cwd: start.cwd,
    env: start.env,
    extendEnv: false,
    shell: false,
    stdin: "ignore",
    buffer: false,
    reject: false,
    // Its own process group, so that one kill reaches bwrap (or, unconfined, everything the program started).
    detached: true,
  });
  const stdout = new CappedOutput(request.maxOutputBytes);
  const stderr = new CappedOutput(request.maxOutputBytes);
  child.stdout?.on("data", (chunk: Buffer) => stdout.add(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.add(chunk));

  let timedOut = false;
  let cancelled = false;
  let drainTimer: NodeJS.Timeout | undefined;
  const kill = () => {
    killProcessGroup(child.pid);
    drainTimer ??= setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, DRAIN_AFTER_KILL_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, request.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    kill();
  };
  request.signal?.addEventListener("abort", onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  // Background children would keep the pipes open after the program exits: end them with it.
  child.once("exit", () => killProcessGroup(child.pid));

  const outcome = await child;
  clearTimeout(timer);
  clearTimeout(drainTimer);
  request.signal?.removeEventListener("abort", onAbort);
  if (outcome.exitCode === undefined && outcome.signal === undefined) {
    throw new Error(`cannot start ${start.command}: ${outcome.shortMessage}`);
  }
  return {
    exitCode: outcome.exitCode ?? null,
    signal: outcome.signal ?? null,
    timedOut,
    cancelled,
    durationMs: Math.round(performance.now() - started),
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
  };
}

interface Start {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

function confined(config: SandboxConfig, request: SandboxRequest, mounts: SandboxMounts): Start {
  const program = request.command(INSIDE);
  const env = insideEnvironment(mounts, request.env ?? {});
  return { ...confinedCommand(mounts, config, env, program.command, program.args), cwd: tmpdir(), env: {} };
}

/** Mode none: the same layout and environment with host paths, and no confinement at all. */
function unconfined(request: SandboxRequest, mounts: SandboxMounts): Start {
  const runDir = mounts.runDir as string;
  const paths: RunPaths = { skill: request.skillDir ?? runDir, work: runDir, workspace: request.workspaceDir ?? runDir };
  const program = request.command(paths);
  const env: Record<string, string> = {
    ...insideEnvironment(mounts, request.env ?? {}),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: runDir,
    TMPDIR: runDir,
    ...(request.skillDir ? { SKILL_DIR: request.skillDir } : {}),
  };
  return { ...program, cwd: request.workspaceDir ?? runDir, env };
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

