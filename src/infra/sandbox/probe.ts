/**
 * Whether the sandbox works on this host: bwrap is installed and can build a whole sandbox (user namespace and
 * all) that runs a program under prlimit. Checked by doing exactly that, once, at start and in `doctor`.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { insideEnvironment } from "./bwrap.js";
import type { SandboxConfig } from "./config.js";
import { confinedCommand } from "./run.js";
import type { SandboxStatus } from "./types.js";

const PROBE_TIMEOUT_MS = 10_000;

const INSTALL_FIX = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";
const NAMESPACE_FIX =
  "allow unprivileged user namespaces: in Docker run with --security-opt seccomp=unconfined --security-opt " +
  "apparmor=unconfined --security-opt systempaths=unconfined (see 'Docker' in docs/operations.md); " +
  "on Ubuntu 24.04+ set sysctl kernel.apparmor_restrict_unprivileged_userns=0; " +
  "elsewhere sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0";
const NONE_DETAIL = "sandbox.mode is none: skill scripts, run_shell and sandboxed MCP servers run UNCONFINED, with the gateway's rights";

export async function sandboxStatus(config: SandboxConfig): Promise<SandboxStatus> {
  if (config.mode === "none") return { mode: "none", ok: true, detail: NONE_DETAIL };
  const version = await probeRun("bwrap", ["--version"], {});
  if (version.failure !== undefined) {
    const reason = version.notFound ? "bubblewrap (bwrap) is not installed" : `bwrap --version failed: ${version.failure}`;
    return { mode: "bwrap", ok: false, reason, fix: INSTALL_FIX };
  }
  const mounts = { network: false };
  const trial = confinedCommand(mounts, config, insideEnvironment(mounts, {}), "true", []);
  const ran = await probeRun(trial.command, trial.args, { cwd: tmpdir(), env: {} });
  if (ran.failure !== undefined) {
    const said = ran.stderr.trim() || ran.failure;
    const fix = /prlimit|setpriv/.test(said) ? "install util-linux (it provides prlimit and setpriv)" : NAMESPACE_FIX;
    return { mode: "bwrap", ok: false, reason: `bubblewrap cannot build a sandbox here (${said})`, fix };
  }
  return { mode: "bwrap", ok: true, detail: `${version.stdout.trim()}: namespaces, read-only system, no network, limits` };
}

interface ProbeRun {
  /** Why the command did not exit with 0 (its exit code, signal or spawn error); undefined when it did. */
  failure: string | undefined;
  notFound: boolean;
  stdout: string;
  stderr: string;
}

/**
 * node:child_process rather than execa, which the runs use: the probe runs at every start, and execa's module graph
 * (about a hundred files) would load with it before the first message needs it.
 */
function probeRun(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<ProbeRun> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, timeout: PROBE_TIMEOUT_MS, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = (err as (Error & { code?: unknown }) | null)?.code;
      const failure = !err
        ? undefined
        : typeof code === "number"
          ? `${command} exited with code ${code}`
          : err.killed
            ? `${command} was stopped after ${PROBE_TIMEOUT_MS / 1000} s`
            : err.message;
      resolve({ failure, notFound: code === "ENOENT", stdout, stderr });
    });
  });
}
