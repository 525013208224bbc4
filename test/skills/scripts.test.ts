import { readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptReport } from "../../src/skills/service.js";
import { startSkills, type SkillsFixture } from "./fixture.js";
import { writeSkill } from "./helpers.js";
import { wasiModule } from "./wasm.js";
import { processesMatching } from "../helpers/processes.js";

const SECRET = "sk-gateway-secret-1234567890";

const SCRIPTS = {
  "scripts/echo.py": [
    "import os, sys",
    "print('py', *sys.argv[1:])",
    "print('cwd-is-home', os.getcwd() == os.environ['HOME'])",
    "open('result.txt', 'w').write('from python')",
  ].join("\n"),
  "scripts/echo.sh": 'echo "bash $1 $2"\nmkdir -p out && echo data > out/file.csv\n',
  "scripts/echo.js": "console.log('node', process.argv.slice(2).join(' '));\n",
  "scripts/hello.wasm": wasiModule({ stdout: "hello from wasm\n", createFile: { name: "wasm.txt", content: "made by wasm" } }),
  "scripts/env.py": "import os\nfor k in sorted(os.environ): print(k + '=' + os.environ[k])\n",
  "scripts/sleep.sh": "sleep 30.4242 &\necho $!\nwait\n",
  "scripts/flood.py": "import sys\nsys.stdout.write('x' * 10_000_000)\nsys.stderr.write('e' * 10)\n",
  "scripts/fail.sh": "echo oops >&2\nexit 3\n",
  "scripts/tamper.py": [
    "import os",
    "here = os.path.dirname(os.path.abspath(__file__))",
    "open(os.path.join(here, 'injected.py'), 'w').write('bad')",
    "open(os.path.join(os.environ['SKILL_DIR'], 'SKILL.md'), 'a').write('tampered')",
    "print('wrote', here)",
  ].join("\n"),
  "scripts/notes.txt": "not runnable",
};

let fx: SkillsFixture;
let toolDir: string;

beforeAll(async () => {
  process.env.LLM_API_KEY = SECRET;
  fx = await startSkills({
    config: { scriptTimeoutMs: 1_500, env: { "granted-env": { GRANTED_VAR: "for-this-skill" } } },
    prepare: async ({ extraDir }) => {
      toolDir = await writeSkill(extraDir, "toolbox", { files: SCRIPTS });
      await writeSkill(extraDir, "granted-env", { files: { "scripts/env.py": SCRIPTS["scripts/env.py"] } });
      await writeFile(join(extraDir, "outside.sh"), "echo escaped\n");
      await symlink(join(extraDir, "outside.sh"), join(toolDir, "scripts", "link.sh"));
    },
  });
});

afterAll(async () => {
  delete process.env.LLM_API_KEY;
  await fx.close();
});

const run = (script: string, args: string[] = [], extra: Record<string, unknown> = {}, ctx = fx.context()) =>
  fx.call("run_skill_script", { skill_name: "toolbox", script_name: script, args, ...extra }, ctx);
const runOk = async (script: string, args: string[] = [], extra: Record<string, unknown> = {}) => {
  const outcome = await run(script, args, extra);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.output as ScriptReport;
};

describe("run_skill_script interpreters", () => {
  it("runs a Python script with its arguments in a fresh work directory", async () => {
    const report = await runOk("echo.py", ["a b", "c"]);
    expect(report).toMatchObject({ exitCode: 0, timedOut: false, stdout: "py a b c\ncwd-is-home True\n", stderr: "" });
    expect(report.files).toEqual([{ path: "result.txt", bytes: 11 }]);
    expect(report.note).toMatch(/destination_path/);
    expect(report.durationMs).toBeGreaterThan(0);
  });

  it("runs a Bash script, named with or without scripts/", async () => {
    const report = await runOk("scripts/echo.sh", ["x", "$HOME;rm -rf /"]);
    expect(report.stdout).toBe("bash x $HOME;rm -rf /\n");
    expect(report.files).toEqual([{ path: "out/file.csv", bytes: 5 }]);
  });

  it("runs a Node script", async () => {
    expect((await runOk("echo.js", ["1", "2"])).stdout).toBe("node 1 2\n");
  });

  it("runs a WASM module under WASI with only the work directory visible", async () => {
    const report = await runOk("hello.wasm");
    expect(report).toMatchObject({ exitCode: 0, stdout: "hello from wasm\n" });
    expect(report.files).toEqual([{ path: "wasm.txt", bytes: 12 }]);
  });

  it("reports a failing script's exit code and stderr", async () => {
    expect(await runOk("fail.sh")).toMatchObject({ exitCode: 3, stderr: "oops\n", stdout: "" });
  });

  it("refuses a file of scripts/ that has no interpreter", async () => {
    const outcome = await run("notes.txt");
    expect(outcome).toMatchObject({ ok: false, code: "invalid_input", error: expect.stringMatching(/cannot be run/) });
  });
});

describe("run_skill_script limits", () => {
  it("kills a script (and what it started) that runs past the timeout", async () => {
    const report = await runOk("sleep.sh");
    expect(report).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" });
    expect(report.durationMs).toBeLessThan(10_000);
    expect(Number(report.stdout.trim())).toBeGreaterThan(0);
    expect(await processesMatching("sleep 30.4242")).toEqual([]);
  });

  it("caps 10 MB of stdout at 1 MB and marks the cut", async () => {
    const report = await runOk("flood.py");
    expect(report.stdoutTruncated).toBe(true);
    expect(report.stdout.startsWith("x".repeat(1_048_576))).toBe(true);
    expect(report.stdout).toMatch(/\[output truncated: 8951424 more bytes were dropped\]$/);
    expect(report.stdout.length).toBeLessThan(1_048_576 + 100);
    expect(report).toMatchObject({ stderr: "eeeeeeeeee", stderrTruncated: false, exitCode: 0 });
  });
});

describe("run_skill_script confinement", () => {
  it("gives the script none of the gateway's environment, only the allowlist", async () => {
    const report = await runOk("env.py");
    expect(report.stdout).not.toContain(SECRET);
    expect(report.stdout).not.toContain("LLM_API_KEY");
    const names = report.stdout.trim().split("\n").map((line) => line.split("=")[0]);
    expect(names).toEqual(expect.arrayContaining(["HOME", "LANG", "PATH", "SKILL_DIR", "TMPDIR"]));
    expect(names).not.toContain("GRANTED_VAR");
  });

  it("adds the environment the configuration grants to that skill", async () => {
    const outcome = await fx.call("run_skill_script", { skill_name: "granted-env", script_name: "env.py" });
    expect(outcome.ok && (outcome.output as ScriptReport).stdout).toContain("GRANTED_VAR=for-this-skill");
  });

  it.each([
    ["../SKILL.md", "denied"],
    ["scripts/../../outside.sh", "denied"],
    ["/etc/passwd", "denied"],
    ["C:\\\\evil.py", "denied"],
    ["link.sh", "invalid_input"],
    ["missing.py", "invalid_input"],
  ])("refuses the script name %j", async (name, code) => {
    const outcome = await run(name);
    expect(outcome).toMatchObject({ ok: false, code });
  });

  it("leaves the skill folder unchanged whatever the script writes: it is read-only", async () => {
    const before = await snapshot(toolDir);
    const report = await runOk("tamper.py");
    expect(report.exitCode).not.toBe(0);
    expect(report.stderr).toMatch(/Read-only file system/);
    expect(await snapshot(toolDir)).toEqual(before);
  });
});

describe("run_skill_script destination_path", () => {
  it("copies the created files into the workspace", async () => {
    const report = await runOk("echo.sh", ["a", "b"], { destination_path: "exports" });
    expect(report.delivered).toEqual(["exports/out/file.csv"]);
    expect(await readFile(join(fx.workspaceDir, "exports", "out", "file.csv"), "utf8")).toBe("data\n");
  });

  it.each(["../outside", "/tmp/elsewhere"])("refuses %j outside the workspace, before running", async (destination) => {
    let ran = 0;
    const off = fx.skills.events.on("skill.exec", () => ran++);
    const outcome = await run("echo.sh", [], { destination_path: destination });
    off();
    expect(outcome).toMatchObject({ ok: false, code: "denied", error: expect.stringMatching(/outside the workspace/) });
    expect(ran).toBe(0);
  });
});

describe("who may run scripts", () => {
  it("refuses a sender without the exec permission, naming it, before running", async () => {
    let ran = 0;
    const off = fx.skills.events.on("skill.exec", () => ran++);
    const member = { holder: "a member in a group chat", classes: ["read", "chat"] as const };
    const outcome = await run("echo.js", [], {}, fx.context({ chatType: "group", permissions: { ...member, classes: [...member.classes] } }));
    off();
    expect(outcome).toMatchObject({ ok: false, code: "denied", error: expect.stringMatching(/needs the "exec" permission/) });
    expect(ran).toBe(0);
  });

  it("runs in a group chat for a sender who may exec", async () => {
    const owner = { holder: "an owner", classes: ["read", "chat", "workspace", "exec", "admin"] as const };
    const outcome = await run("echo.js", [], {}, fx.context({ chatType: "group", permissions: { ...owner, classes: [...owner.classes] } }));
    expect(outcome.ok).toBe(true);
  });
});

/** Every file of the folder with its content. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile()) out[path] = await readFile(path, "utf8");
    else if (entry.isDirectory()) out[path] = `dir ${(await stat(path)).mode}`;
  }
  return out;
}
