/**
 * What the sandbox costs per run: `true` and a one-line Python script, each run unconfined (sandbox.mode none,
 * which still makes and removes a run dir) and in bubblewrap, plus the one-off probe at start. The difference is
 * the price of the namespaces, mounts and limits on every skill script and run_shell call.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Sandbox, sandboxConfigSchema, sandboxStatus, type RunPaths } from "../src/infra/sandbox/index.js";
import { median } from "./stats.js";
import type { BenchResult } from "./types.js";

const RUNS = 30;


async function timeRuns(sandbox: Sandbox, skillDir: string, command: (paths: RunPaths) => { command: string; args: string[] }): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await sandbox.run({ command, skillDir, timeoutMs: 10_000, maxOutputBytes: 4096 }, async (result) => result);
    times.push(performance.now() - started);
  }
  return median(times);
}

export async function run(): Promise<BenchResult> {
  const log = pino({ level: "silent" });
  const skillDir = await mkdtemp(join(tmpdir(), "switchboard-sandbox-bench-"));
  try {
    await writeFile(join(skillDir, "hello.py"), "print('hello')\n");
    const probeStarted = performance.now();
    const status = await sandboxStatus(sandboxConfigSchema.parse({}));
    const probeMs = performance.now() - probeStarted;
    const none = await Sandbox.create(sandboxConfigSchema.parse({ mode: "none" }), log);
    const bwrap = await Sandbox.create(sandboxConfigSchema.parse({}), log);
    const trueCommand = () => ({ command: "true", args: [] });
    // The same interpreter both ways (the host PATH may find a slower shim first).
    const python = (paths: RunPaths) => ({ command: "/usr/bin/python3", args: ["-B", join(paths.skill, "hello.py")] });
    const rows: BenchResult["rows"] = [{ measure: "probe at start", value: `${probeMs.toFixed(0)} ms (${status.ok ? "works" : "unavailable"})` }];
    for (const [name, command] of [["true", trueCommand], ["python3 hello.py", python]] as const) {
      const unconfined = await timeRuns(none, skillDir, command);
      const confined = status.ok ? await timeRuns(bwrap, skillDir, command) : NaN;
      rows.push({ measure: `${name}, median of ${RUNS}`, unconfined: `${unconfined.toFixed(1)} ms`, sandboxed: `${confined.toFixed(1)} ms`, overhead: `${(confined - unconfined).toFixed(1)} ms` });
    }
    return { name: "sandbox", workload: `${RUNS} sequential runs each, skill folder of one file, gateway ${process.geteuid?.() === 0 ? "as root (setpriv to 65534)" : "as a user"}`, rows };
  } finally {
    await rm(skillDir, { recursive: true, force: true });
  }
}
