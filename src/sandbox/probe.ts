/**
 * Whether the sandbox works on this host: bwrap is installed and can build a whole sandbox (user namespace and
 * all) that runs a program under prlimit. Checked by doing exactly that, once, at start and in `doctor`.
 */
import { execa } from "execa";
import { tmpdir } from "node:os";
import { insideEnvironment } from "./bwrap.js";
import type { SandboxConfig } from "./config.js";
import { confinedCommand } from "./run.js";
import type { SandboxStatus } from "./types.js";

const PROBE_TIMEOUT_MS = 10_000;

const INSTALL_FIX = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";
const NAMESPACE_FIX =
  "allow unprivileged user namespaces: in Docker run with --security-opt seccomp=unconfined --security-opt " +
  "apparmor=unconfined (see README, Sandbox); on Ubuntu 24.04+ set sysctl kernel.apparmor_restrict_unprivileged_userns=0; " +
  "elsewhere sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0";
const NONE_DETAIL = "sandbox.mode is none: skill scripts, run_shell and sandboxed MCP servers run UNCONFINED, with the gateway's rights";

export async function sandboxStatus(config: SandboxConfig): Promise<SandboxStatus> {
  if (config.mode === "none") return { mode: "none", ok: true, detail: NONE_DETAIL };
  const version = await execa("bwrap", ["--version"], { reject: false, timeout: PROBE_TIMEOUT_MS });
  if (version.exitCode !== 0) {
    const reason = version.code === "ENOENT" ? "bubblewrap (bwrap) is not installed" : `bwrap --version failed: ${version.shortMessage}`;
    return { mode: "bwrap", ok: false, reason, fix: INSTALL_FIX };
  }
  const mounts = { network: false };
  const trial = confinedCommand(mounts, config, insideEnvironment(mounts, {}), "true", []);
  const ran = await execa(trial.command, trial.args, { reject: false, timeout: PROBE_TIMEOUT_MS, cwd: tmpdir(), env: {}, extendEnv: false });
  if (ran.exitCode !== 0) {
    const said = String(ran.stderr ?? "").trim() || String(ran.shortMessage);
    const fix = /prlimit|setpriv/.test(said) ? "install util-linux (it provides prlimit and setpriv)" : NAMESPACE_FIX;
    return { mode: "bwrap", ok: false, reason: `bubblewrap cannot build a sandbox here (${said})`, fix };
  }
  return { mode: "bwrap", ok: true, detail: `${version.stdout.trim()}: namespaces, read-only system, no network, limits` };
}
