/** What a sandboxed run is asked to do and what it reports. */

/** Where the parts of a run are, as the program sees them (inside the sandbox, or host paths in mode none). */
export interface RunPaths {
  skill: string;
  work: string;
  workspace: string;
}

export interface SandboxRequest {
  /** The program and its arguments, built from where the run's parts are. Never through a shell of ours. */
  command: (paths: RunPaths) => { command: string; args: string[] };
  /** Mounted read-only. */
  skillDir?: string | undefined;
  /** Mounted writable and used as the working directory (run_shell). */
  workspaceDir?: string | undefined;
  /** Granted on top of the allowlist (PATH, LANG, HOME, TMPDIR). */
  env?: Readonly<Record<string, string>>;
  /** The name sandbox.network is looked up by (a skill's or MCP server's). */
  networkName?: string | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
}

export interface SandboxResult {
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
}

/** Whether runs can happen, and how confined they are. */
export type SandboxStatus =
  | { mode: "bwrap"; ok: true; detail: string }
  | { mode: "bwrap"; ok: false; reason: string; fix: string }
  | { mode: "none"; ok: true; detail: string };

/** A run refused because the sandbox does not work here; the message says why and how to fix it. */
export class SandboxUnavailableError extends Error {
  constructor(reason: string, fix: string) {
    super(`Running code is unavailable on this gateway: ${reason}. The owner can fix it: ${fix}`);
    this.name = "SandboxUnavailableError";
  }
}
