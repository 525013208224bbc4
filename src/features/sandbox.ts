/** The sandbox's plug: its settings, run_shell (the `shell` handler) and doctor's check that bubblewrap works. */
import { join } from "node:path";
import { createShellHandler } from "../handlers/shell.js";
import { Workspaces } from "../infra/workspace.js";
import { checkReachable, sandboxConfigSchema, sandboxStatus } from "../infra/sandbox/index.js";
import { defineFeature, type CheckResult } from "./module.js";

export const sandboxFeature = defineFeature({
  name: "sandbox",
  configSchema: sandboxConfigSchema,
  // The sandbox itself is a service several features use (skills, MCP): the app builds it before any feature.
  create: ({ sandbox }) => ({ handlers: [createShellHandler(sandbox)] }),
  doctor: async (settings, core): Promise<CheckResult[]> => {
    const status = await sandboxStatus(settings);
    if (!status.ok) return [{ name: "sandbox", ok: false, detail: `${status.reason}; skill scripts and run_shell are refused`, fix: status.fix }];
    if (status.mode === "none") return [{ name: "sandbox", ok: true, warning: true, detail: status.detail, fix: "set sandbox.mode: bwrap" }];
    try {
      await checkReachable(join(Workspaces.rootOf(core.dataDir), "session"));
    } catch (err) {
      return [{ name: "sandbox", ok: true, warning: true, detail: `run_shell will fail: ${(err as Error).message}`, fix: "see 'Sandbox' in docs/skills.md" }];
    }
    return [{ name: "sandbox", ok: true, detail: status.detail }];
  },
});
