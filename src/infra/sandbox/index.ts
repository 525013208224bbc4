/**
 * The sandbox engine: every run of untrusted code (skill scripts, run_shell, stdio MCP servers marked
 * `sandbox: true`) goes through a Sandbox. It is probed once when built; when it does not work, every run is
 * refused with the reason and the fix, never run unconfined, unless the owner set sandbox.mode: none.
 */
import type { Logger } from "pino";
import type { SandboxConfig } from "./config.js";
import { sandboxStatus } from "./probe.js";
import { runSandboxed, wrapCommand, type WrapRequest } from "./run.js";
import type { SandboxRequest, SandboxResult, SandboxStatus } from "./types.js";
import type { WrappedCommand } from "./bwrap.js";

export { sandboxConfigSchema, type SandboxConfig } from "./config.js";
export { sandboxStatus } from "./probe.js";
export { runSandboxed, wrapCommand, type WrapRequest } from "./run.js";
export type { WrappedCommand } from "./bwrap.js";
export { INSIDE } from "./bwrap.js";
export { checkReachable } from "./owner.js";
export { SandboxUnavailableError, type RunPaths, type SandboxRequest, type SandboxResult, type SandboxStatus } from "./types.js";

export class Sandbox {
  private constructor(
    readonly config: SandboxConfig,
    readonly status: SandboxStatus,
  ) {}

  /** Probes the host and says, once, what the runs will be: confined, refused (with why), or unconfined. */
  static async create(config: SandboxConfig, log: Logger): Promise<Sandbox> {
    const status = await sandboxStatus(config);
    if (status.mode === "none") log.warn(status.detail);
    else if (!status.ok) log.error({ reason: status.reason, fix: status.fix }, "sandbox unavailable: skill scripts and run_shell are refused");
    else log.debug({ detail: status.detail }, "sandbox ready");
    return new Sandbox(config, status);
  }

  /** Why runs are refused here, or undefined when they can happen. */
  get unavailable(): string | undefined {
    return this.status.ok ? undefined : `${this.status.reason}; fix: ${this.status.fix}`;
  }

  run<T>(request: SandboxRequest, afterRun: (result: SandboxResult, runDir: string) => Promise<T>): Promise<T> {
    return runSandboxed(this.config, this.status, request, afterRun);
  }

  wrap(request: WrapRequest): WrappedCommand {
    return wrapCommand(this.config, this.status, request);
  }
}
