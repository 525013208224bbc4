/** Whether the sandbox works, said plainly: no silent fallback, doctor FAIL with the fix, and mode none warned. */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config.js";
import { formatDoctor, runDoctor } from "../../../src/doctor.js";
import { createShellHandler } from "../../../src/handlers/shell.js";
import { HandlerRegistry } from "../../../src/handlers/registry.js";
import { Sandbox, sandboxConfigSchema, SandboxUnavailableError } from "../../../src/infra/sandbox/index.js";
import { captureLog } from "../../helpers/captured-log.js";
import { noSandboxReason, testSandbox } from "../../helpers/sandbox.js";
import { makeToolContext } from "../../helpers/tool-context.js";
import { startSkills } from "../../skills/fixture.js";
import { writeSkill } from "../../skills/helpers.js";

const silent = pino({ level: "silent" });

describe("where bubblewrap is missing", () => {
  let emptyDir: string;
  let savedPath: string | undefined;

  beforeEach(async () => {
    emptyDir = await mkdtemp(join(tmpdir(), "switchboard-no-bwrap-"));
    savedPath = process.env.PATH;
    process.env.PATH = emptyDir;
  });

  afterEach(async () => {
    process.env.PATH = savedPath;
    await rm(emptyDir, { recursive: true, force: true });
  });

  it("refuses every run with the reason and the fix, and logs it once at start", async () => {
    const { log, logs } = captureLog([]);
    const sandbox = await Sandbox.create(sandboxConfigSchema.parse({}), log);
    expect(sandbox.unavailable).toMatch(/bubblewrap \(bwrap\) is not installed; fix: install bubblewrap/);
    expect(logs.filter((l) => l.msg.startsWith("sandbox unavailable"))).toHaveLength(1);
    const run = sandbox.run({ command: () => ({ command: "true", args: [] }), timeoutMs: 1_000, maxOutputBytes: 10 }, async (r) => r);
    await expect(run).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(() => sandbox.wrap({ command: "server", args: [] })).toThrow(/Running code is unavailable on this gateway/);
  });

  it("makes run_shell tell the model why it cannot run", async () => {
    const sandbox = await Sandbox.create(sandboxConfigSchema.parse({}), silent);
    const registry = new HandlerRegistry({ log: silent, defaultTimeoutMs: 5_000 });
    const shell = createShellHandler(sandbox);
    registry.register(shell);
    const outcome = await registry.executeByTool("run_shell", { command: "id" }, makeToolContext());
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/run_shell is unavailable on this gateway: bubblewrap \(bwrap\) is not installed/) });
  });

  it("makes skill scripts tell the model why they cannot run", async () => {
    const sandbox = await Sandbox.create(sandboxConfigSchema.parse({}), silent);
    const fx = await startSkills({
      sandbox,
      prepare: async ({ extraDir }) => void (await writeSkill(extraDir, "tool", { files: { "scripts/run.sh": "echo ran\n" } })),
    });
    try {
      const outcome = await fx.call("run_skill_script", { skill_name: "tool", script_name: "run.sh" });
      expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/Running code is unavailable on this gateway: bubblewrap \(bwrap\) is not installed/) });
    } finally {
      await fx.close();
    }
  });

  it("makes doctor print FAIL with the fix", async () => {
    const config = configSchema.parse({ dataDir: emptyDir });
    const report = formatDoctor(await runDoctor(config, silent));
    expect(report).toMatch(/^FAIL sandbox {10}bubblewrap \(bwrap\) is not installed.*\n {5}fix: install bubblewrap/m);
  });
});

describe("sandbox.mode none", () => {
  it("warns at start and runs unconfined, in a run dir that is removed", async () => {
    const { log, logs } = captureLog([]);
    const sandbox = await Sandbox.create(sandboxConfigSchema.parse({ mode: "none" }), log);
    expect(logs.find((l) => l.level === 40)?.msg).toMatch(/UNCONFINED/);
    const result = await sandbox.run(
      { command: (paths) => ({ command: "sh", args: ["-c", `pwd; test "$HOME" = "${paths.work}" && echo home-ok`] }), timeoutMs: 5_000, maxOutputBytes: 1_000 },
      async (r, runDir) => ({ ...r, runDir }),
    );
    expect(result.stdout).toBe(`${result.runDir}\nhome-ok\n`);
  });
});

describe("configuration", () => {
  it("takes \"all\" for a skill's network and refuses host lists with the reason", () => {
    expect(sandboxConfigSchema.parse({ network: { weather: "all" } }).network).toEqual({ weather: "all" });
    const bad = sandboxConfigSchema.safeParse({ network: { weather: ["api.weather.example"] } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/host lists are not supported yet/);
  });
});

describe.skipIf(noSandboxReason !== undefined)("where bubblewrap works", () => {
  it("says so in doctor", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-doctor-"));
    await chmod(dataDir, 0o711);
    const report = formatDoctor(await runDoctor(configSchema.parse({ dataDir }), silent));
    await rm(dataDir, { recursive: true, force: true });
    expect(report).toMatch(/^OK {3}sandbox {10}bubblewrap \d/m);
  });

  it("gives a skill the network only when sandbox.network grants it", async () => {
    const sandbox = await testSandbox({ network: { weather: "all" } });
    const probe = (networkName: string) =>
      sandbox.run(
        { command: () => ({ command: "sh", args: ["-c", "ls /sys/class/net 2>/dev/null || cat /proc/net/dev | tail -n +3 | cut -d: -f1"] }), networkName, timeoutMs: 5_000, maxOutputBytes: 10_000 },
        async (r) => r.stdout.split(/\s+/).filter(Boolean).sort(),
      );
    expect(await probe("other")).toEqual(["lo"]);
    expect((await probe("weather")).length).toBeGreaterThan(1);
  });

  it("wraps a long-running command in bwrap with an empty outer environment", async () => {
    const sandbox = await testSandbox();
    const wrapped = sandbox.wrap({ command: "node", args: ["server.js"], env: { API_URL: "http://x" } });
    expect(wrapped.env).toEqual({});
    expect(wrapped.args).toEqual(expect.arrayContaining(["--unshare-net", "--die-with-parent", "API_URL", "node", "server.js"]));
    expect(wrapped.args.slice(-2)).toEqual(["node", "server.js"]);
  });
});
