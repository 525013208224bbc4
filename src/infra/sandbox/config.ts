/** The `sandbox` section of the configuration: how untrusted code (skill scripts, run_shell, MCP servers) runs. */
import { z } from "zod";

const positive = z.number().int().positive();

export const sandboxConfigSchema = z
  .strictObject({
    /**
     * bwrap: every run inside bubblewrap; where it cannot work, exec tools are unavailable. none: runs are
     * unconfined (no namespaces, no limits), for hosts where the owner accepts that; warned at every start.
     */
    mode: z.enum(["bwrap", "none"]).default("bwrap"),
    /**
     * Network for one skill or MCP server, by name: "all" shares the gateway's network. Absent: no network at
     * all (only the sandbox's own loopback). Host lists are refused until a filtering proxy exists.
     */
    network: z.record(z.string().min(1), z.literal("all", { error: 'must be "all" (host lists are not supported yet)' })).default({}),
    /** run_shell: wall-clock limit of one command, and what it keeps of stdout and, separately, stderr. */
    shell: z
      .strictObject({
        timeoutMs: positive.max(3_600_000).default(60_000),
        maxOutputBytes: positive.default(65_536),
      })
      .prefault({}),
    limits: z
      .strictObject({
        /** CPU time of each process, in seconds. */
        cpuSeconds: positive.default(60),
        /** Data memory (heap) of each process, in MiB. */
        memoryMb: positive.default(1024),
        /** Processes and threads of the whole run. */
        processes: positive.default(128),
        /** Largest file a process may write, in MiB. */
        fileSizeMb: positive.default(100),
        openFiles: positive.default(256),
        /** Size of the private /tmp, in MiB. */
        tmpMb: positive.default(64),
      })
      .prefault({}),
  })
  .prefault({});

export type SandboxConfig = z.output<typeof sandboxConfigSchema>;
export type SandboxLimits = SandboxConfig["limits"];
