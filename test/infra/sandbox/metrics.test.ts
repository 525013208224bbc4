/** switchboard_sandbox_runs_total moves with real bubblewrap runs, by how each ended. */
import { describe, expect, it } from "vitest";
import { runSandboxed, sandboxConfigSchema, SandboxUnavailableError, type SandboxStatus } from "../../../src/infra/sandbox/index.js";
import { metricValue } from "../../helpers/metrics.js";
import { noSandboxReason, testSandbox } from "../../helpers/sandbox.js";

const RUNS = "switchboard_sandbox_runs_total";
const shell = (line: string) => () => ({ command: "/bin/sh", args: ["-c", line] });
const limits = { timeoutMs: 10_000, maxOutputBytes: 4_096 };

describe.skipIf(noSandboxReason !== undefined)("switchboard_sandbox_runs_total", () => {
  it("counts a run that exits 0 as ok, another exit code as error, and a run stopped at its limit as timeout", async () => {
    const sandbox = await testSandbox();
    const before = {
      ok: await metricValue(RUNS, { runtime: "bwrap", outcome: "ok" }),
      error: await metricValue(RUNS, { runtime: "bwrap", outcome: "error" }),
      timeout: await metricValue(RUNS, { runtime: "bwrap", outcome: "timeout" }),
    };

    const ok = await sandbox.run({ command: shell("echo inside"), ...limits }, async (result) => result);
    expect(ok.stdout).toBe("inside\n");
    expect(await metricValue(RUNS, { runtime: "bwrap", outcome: "ok" })).toBe(before.ok + 1);

    const failed = await sandbox.run({ command: shell("exit 3"), ...limits }, async (result) => result);
    expect(failed.exitCode).toBe(3);
    expect(await metricValue(RUNS, { runtime: "bwrap", outcome: "error" })).toBe(before.error + 1);

    const slow = await sandbox.run({ command: shell("sleep 5"), ...limits, timeoutMs: 200 }, async (result) => result);
    expect(slow.timedOut).toBe(true);
    expect(await metricValue(RUNS, { runtime: "bwrap", outcome: "timeout" })).toBe(before.timeout + 1);
  });
});

describe("switchboard_sandbox_runs_total without a working sandbox", () => {
  it("counts a refused run", async () => {
    // What the probe answers on a host without bubblewrap: every run is refused, none runs unconfined.
    const config = sandboxConfigSchema.parse({});
    const status: SandboxStatus = { mode: "bwrap", ok: false, reason: "bubblewrap (bwrap) is not installed", fix: "install bubblewrap" };
    const before = await metricValue(RUNS, { runtime: "bwrap", outcome: "refused" });

    await expect(runSandboxed(config, status, { command: shell("true"), ...limits }, async (result) => result)).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(await metricValue(RUNS, { runtime: "bwrap", outcome: "refused" })).toBe(before + 1);
  });
});
