import { Command } from "commander";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registerSkillsCommands } from "../../src/skills/cli.js";
import { skillsConfigSchema } from "../../src/skills/config.js";
import { BUNDLED_SKILLS_DIR } from "../../src/skills/index.js";
import type { ScriptReport } from "../../src/skills/service.js";
import { startSkills } from "./fixture.js";
import { TempDirs, silentLog, skillMd, writeFiles, writeSkill } from "./helpers.js";

const temp = new TempDirs();
afterEach(async () => {
  process.exitCode = undefined;
  await temp.cleanup();
});

/** Runs `switchboard skills ...args` and returns what it printed and the exit code it set. */
async function cli(args: string[], dirs: { bundledDir?: string; userDir?: string } = {}) {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  const userDir = dirs.userDir ?? join(await temp.make(), "skills");
  registerSkillsCommands(program, {
    setup: () => ({ config: skillsConfigSchema.parse({}), bundledDir: dirs.bundledDir ?? BUNDLED_SKILLS_DIR, userDir, log: silentLog }),
    out: (line) => lines.push(line),
  });
  await program.parseAsync(["skills", ...args], { from: "user" });
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  return { output: lines.join("\n"), exitCode, userDir };
}

describe("switchboard skills", () => {
  it("validate: every bundled skill passes", async () => {
    const { output, exitCode } = await cli(["validate"]);
    expect(output).toBe("All skills are valid.");
    expect(exitCode).toBeUndefined();
  });

  it("validate DIR: reports each problem and fails, for one skill or a folder of skills", async () => {
    const root = await temp.make();
    const bad = await writeSkill(root, "bad-one", { skillMd: skillMd({ name: "Bad", description: "d" }) });
    await writeSkill(root, "good-one");
    for (const dir of [bad, root]) {
      const { output, exitCode } = await cli(["validate", dir]);
      expect(output).toContain(`${join(bad, "SKILL.md")}: error: name: may only contain lowercase letters a-z, digits and '-'`);
      expect(output).toMatch(/Validation failed\.$/);
      expect(exitCode).toBe(1);
    }
  });

  it("validate DIR: a folder without skills or a missing folder fails", async () => {
    const empty = await temp.make();
    expect(await cli(["validate", empty])).toMatchObject({ exitCode: 1, output: expect.stringContaining("holds no skill") });
    expect(await cli(["validate", join(empty, "nope")])).toMatchObject({ exitCode: 1, output: expect.stringContaining("is not a folder") });
  });

  it("list and info show the bundled skills", async () => {
    const list = await cli(["list"]);
    expect(list.output).toContain("date-helper [Executable] (bundled): Exact date and time-zone answers");
    expect(list.output).toContain("reminder-writing [Instruction] (bundled)");
    const info = await cli(["info", "date-helper"]);
    expect(info.output).toContain("- datetime.mjs (node)");
    expect(info.output).toContain("Description: Exact date and time-zone answers");
    expect(info.output).toContain(`Folder: ${join(BUNDLED_SKILLS_DIR, "date-helper")} (bundled)`);
    expect(await cli(["info", "nope"])).toMatchObject({ exitCode: 1, output: 'No skill is named "nope".' });
  });

  it("install: installs a valid skill and refuses a broken one", async () => {
    const source = join(await temp.make(), "notes-helper");
    await writeFiles(source, { "SKILL.md": skillMd({ name: "notes-helper", description: "Keeps notes tidy." }) });
    const installed = await cli(["install", source]);
    expect(installed.output).toBe(`Installed notes-helper [instruction] in ${join(installed.userDir, "notes-helper")}`);
    expect(await readdir(installed.userDir)).toEqual(["notes-helper"]);

    const broken = join(await temp.make(), "broken");
    await writeFiles(broken, { "SKILL.md": "---\nname: broken\n---\n" });
    const refused = await cli(["install", broken]);
    expect(refused).toMatchObject({ exitCode: 1, output: `cannot install ${broken}:\n  - description: is required` });
  });
});

describe("bundled skills at work", () => {
  it("date-helper converts a time between zones across a daylight-saving change, and explains bad input", async () => {
    const fx = await startSkills({ bundledDir: BUNDLED_SKILLS_DIR });
    const run = (args: string[]) =>
      fx.output<ScriptReport>("run_skill_script", { skill_name: "date-helper", script_name: "datetime.mjs", args });
    try {
      const report = await run(["convert", "2026-03-29 09:00", "Europe/Paris", "America/New_York"]);
      expect(report.stdout).toBe(
        "2026-03-29 09:00 Sunday (Europe/Paris, GMT+02:00)\n= 2026-03-29 03:00 Sunday (America/New_York, GMT-04:00)\n",
      );
      expect(await run(["now", "Mars/Base"])).toMatchObject({ exitCode: 2, stderr: expect.stringMatching(/^error: unknown time zone "Mars\/Base"/) });
      expect(await run(["weekday", "2026-02-30"])).toMatchObject({ exitCode: 2, stderr: expect.stringMatching(/not a real date/) });
    } finally {
      await fx.close();
    }
  });

  it("reminder-writing ships its examples as a reference", async () => {
    const fx = await startSkills({ bundledDir: BUNDLED_SKILLS_DIR });
    try {
      const read = await fx.output<{ content: string }>("get_skill_reference", { skill_name: "reminder-writing", ref_name: "examples.md" });
      expect(read.content).toMatch(/^# Reminder examples/);
    } finally {
      await fx.close();
    }
  });
});
