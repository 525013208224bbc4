/**
 * The bubblewrap command line of one sandboxed run. Inside: new user (uid/gid 65534, no capabilities), PID, IPC,
 * UTS and cgroup namespaces, and a network namespace of its own unless the owner granted the network; a root
 * made of the read-only system folders, a minimal /etc, the skill folder read-only at /skill, the run directory
 * at /work and the session workspace at /workspace (both writable), a private /tmp, /proc and /dev. Resource
 * limits are set by prlimit, the first program inside, before it becomes the command.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { SandboxLimits } from "./config.js";

/** Where the parts of a run appear inside the sandbox. */
export const INSIDE = { skill: "/skill", work: "/work", workspace: "/workspace", tmp: "/tmp" } as const;

export const SANDBOX_UID = 65534;
const MIB = 1024 * 1024;
const INSIDE_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Top-level folders that hold programs and libraries; symlinks (merged /usr) are recreated as symlinks. */
const SYSTEM_DIRS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/**
 * The parts of /etc programs need to start and to find users, libraries, time zones and certificates; nothing
 * else of /etc (no shadow, no machine credentials) is visible.
 */
const ETC_ENTRIES = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/localtime",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/mime.types",
  "/etc/python3",
  "/etc/python3.11",
  "/etc/python3.12",
  "/etc/python3.13",
];
/** Only with the network: name resolution. */
const NETWORK_ETC_ENTRIES = ["/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf"];

/** What a run is made of, in host paths. */
export interface SandboxMounts {
  /** Mounted read-only at /skill. */
  skillDir?: string | undefined;
  /** The run's own writable folder, mounted at /work (HOME); cwd unless there is a workspace. */
  runDir?: string | undefined;
  /** The session workspace, writable at /workspace, and the cwd. */
  workspaceDir?: string | undefined;
  /** Shares the gateway's network namespace ("all" in sandbox.network). */
  network: boolean;
}

export interface WrappedCommand {
  command: string;
  args: string[];
  /** The environment bwrap itself is started with; the sandbox gets only what its arguments set. */
  env: Record<string, string>;
}

/** The working directory inside the sandbox. */
export function insideCwd(mounts: SandboxMounts): string {
  if (mounts.workspaceDir) return INSIDE.workspace;
  return mounts.runDir ? INSIDE.work : INSIDE.tmp;
}

/** The environment inside: a fixed PATH and locale, HOME and TMPDIR inside, then what the caller grants. */
export function insideEnvironment(mounts: SandboxMounts, granted: Readonly<Record<string, string>>): Record<string, string> {
  return {
    PATH: INSIDE_PATH,
    LANG: "C.UTF-8",
    ...granted,
    HOME: mounts.runDir ? INSIDE.work : INSIDE.tmp,
    TMPDIR: INSIDE.tmp,
    ...(mounts.skillDir ? { SKILL_DIR: INSIDE.skill } : {}),
  };
}

export function bwrapArgs(
  mounts: SandboxMounts,
  limits: SandboxLimits,
  env: Readonly<Record<string, string>>,
  command: string,
  args: readonly string[],
): string[] {
  return [
    "--die-with-parent",
    "--new-session",
    "--unshare-user",
    "--uid", String(SANDBOX_UID),
    "--gid", String(SANDBOX_UID),
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(mounts.network ? [] : ["--unshare-net"]),
    "--hostname", "sandbox",
    "--cap-drop", "ALL",
    ...systemMounts(mounts.network),
    "--proc", "/proc",
    "--dev", "/dev",
    "--size", String(limits.tmpMb * MIB),
    "--tmpfs", INSIDE.tmp,
    ...(mounts.skillDir ? ["--ro-bind", mounts.skillDir, INSIDE.skill] : []),
    ...(mounts.runDir ? ["--bind", mounts.runDir, INSIDE.work] : []),
    ...(mounts.workspaceDir ? ["--bind", mounts.workspaceDir, INSIDE.workspace] : []),
    "--chdir", insideCwd(mounts),
    "--clearenv",
    ...Object.entries(env).flatMap(([name, value]) => ["--setenv", name, value]),
    "--",
    ...prlimitPrefix(limits),
    command,
    ...args,
  ];
}

function prlimitPrefix(limits: SandboxLimits): string[] {
  return [
    "prlimit",
    `--cpu=${limits.cpuSeconds}`,
    `--data=${limits.memoryMb * MIB}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileSizeMb * MIB}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    "--",
  ];
}

function systemMounts(network: boolean): string[] {
  const out = ["--ro-bind", "/usr", "/usr"];
  for (const dir of SYSTEM_DIRS) {
    const link = symlinkTarget(dir);
    if (link !== undefined) out.push("--symlink", link, dir);
    else out.push("--ro-bind-try", dir, dir);
  }
  for (const entry of [...ETC_ENTRIES, ...(network ? NETWORK_ETC_ENTRIES : [])]) out.push("--ro-bind-try", entry, entry);
  // Node installed outside /usr (nvm, a tarball in /opt): its prefix, for .js and .wasm scripts.
  const nodePrefix = dirname(dirname(process.execPath));
  if (!process.execPath.startsWith("/usr/")) out.push("--ro-bind", nodePrefix, nodePrefix);
  return out;
}

/** The target of `path` when it is a symlink; undefined for a folder or when it is missing. */
function symlinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
