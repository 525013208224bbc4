import { createHook } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillsToolImplementations, skillToolDefinition } from "../../src/handlers/skills.js";
import { skillsConfigSchema } from "../../src/skills/config.js";
import { EquippedSkills } from "../../src/skills/equipped.js";
import type { SkillEvents } from "../../src/skills/events.js";
import type { ScriptReport } from "../../src/skills/service.js";
import { createStore } from "../../src/infra/store/index.js";
import { assertToolDefinitionsValid } from "../handlers/tool-rules.js";
import { startSkills, type SkillsFixture } from "./fixture.js";
import { makeSkill, silentLog, skillMd, writeSkill } from "./helpers.js";

let fx: SkillsFixture;
const execs: Array<SkillEvents["skill.exec"]> = [];

beforeAll(async () => {
  fx = await startSkills({
    prepare: async ({ bundledDir, extraDir }) => {
      await writeSkill(bundledDir, "reminder-writing", {
        skillMd: skillMd({ name: "reminder-writing", description: "Write good reminders." }, "# Reminders\n\nStart with a verb."),
        files: { "references/examples.md": "# Examples\n- Call mum", "assets/logo.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]) },
      });
      await writeSkill(extraDir, "word-count", {
        files: { "scripts/count.py": "import sys\nprint(len(sys.argv[1].split()))\n" },
      });
      await writeSkill(extraDir, "read-file-doc", {
        skillMd: skillMd({ name: "read-file-doc", description: "How to read files.", system: true, handler: "filesystem", "tool-name": "read_file" }),
        files: { "main.sh": "echo system skills have no tool of their own" },
      });
    },
  });
  fx.skills.events.on("skill.exec", (e) => execs.push(e));
});

afterAll(() => fx.close());

describe("skills tool definitions", () => {
  it("follow the shared tool rules, skill_<name> tools included", () => {
    const config = skillsConfigSchema.parse({});
    const fixed = skillsToolImplementations(fx.skills.service, config).map((impl) => impl.definition);
    const tiny = makeSkill("x", { type: "executable", description: "Tiny." });
    assertToolDefinitionsValid([...fixed, skillToolDefinition(tiny, config), skillToolDefinition(makeSkill("long-one"), config)]);
    expect(fixed.map((t) => [t.name, t.risk])).toEqual([
      ["list_skills", "read"],
      ["get_skill_info", "read"],
      ["get_skill_reference", "read"],
      ["run_skill_script", "exec"],
      ["run_skill", "exec"],
      ["equip_skill", "read"],
      ["install_skill", "admin"],
      ["reload_skills", "admin"],
    ]);
  });

  it("registers skill_<name> only for external executable skills", () => {
    expect(fx.handlers.handlerOf("skill_word_count")).toBe("skills");
    expect(fx.handlers.getTool("skill_word_count")?.risk).toBe("exec");
    expect(fx.handlers.hasTool("skill_reminder_writing")).toBe(false);
    expect(fx.handlers.hasTool("skill_read_file_doc")).toBe(false);
  });
});

describe("levels 1 and 2", () => {
  it("list_skills lists every skill with its type and origin", async () => {
    const listed = await fx.output<Array<Record<string, unknown>>>("list_skills", {});
    expect(listed).toEqual([
      { name: "read-file-doc", type: "executable", description: "How to read files.", origin: "extra", documentsTool: "read_file" },
      { name: "reminder-writing", type: "instruction", description: "Write good reminders.", origin: "bundled" },
      { name: "word-count", type: "executable", description: "The word-count skill, for tests.", origin: "extra" },
    ]);
  });

  it("the catalog shows every skill with its tag", () => {
    expect(fx.skills.catalog()).toContain("- word-count [Executable]: The word-count skill, for tests.");
    expect(fx.skills.catalog()).toContain("- reminder-writing [Instruction]: Write good reminders.");
  });

  it("get_skill_info returns the body and resources, and discloses the tools the skill needs", async () => {
    const ctx = fx.context();
    const text = await fx.output<string>("get_skill_info", { skill_name: "word-count" }, ctx);
    // A script that runs is listed once, with how to run it.
    expect(text).not.toContain("- scripts/count.py");
    expect(text).toContain("- count.py (python3)");
    expect([...ctx.disclosedTools].sort()).toEqual(["run_skill", "run_skill_script", "skill_word_count"]);

    const docs = fx.context();
    expect(await fx.output<string>("get_skill_info", { skill_name: "reminder-writing" }, docs)).toContain("Start with a verb.");
    expect([...docs.disclosedTools]).toEqual(["get_skill_reference"]);
  });

  it("suggests close names for an unknown skill", async () => {
    const outcome = await fx.call("get_skill_info", { skill_name: "word-cont" });
    expect(outcome).toMatchObject({ ok: false, code: "invalid_input", error: 'No skill is named "word-cont". Did you mean: word-count?' });
  });
});

describe("level 3: get_skill_reference", () => {
  it("reads a reference by file name or path", async () => {
    for (const ref_name of ["examples.md", "references/examples.md"]) {
      const read = await fx.output<{ path: string; content: string }>("get_skill_reference", { skill_name: "reminder-writing", ref_name });
      expect(read).toEqual({ path: "references/examples.md", content: "# Examples\n- Call mum", truncated: false });
    }
  });

  it("refuses binary assets, traversal and unknown names, listing the files there are", async () => {
    const call = (ref_name: string) => fx.call("get_skill_reference", { skill_name: "reminder-writing", ref_name });
    expect(await call("logo.png")).toMatchObject({ ok: false, error: "assets/logo.png is a binary file, not text" });
    expect(await call("../SKILL.md")).toMatchObject({ ok: false, code: "denied" });
    expect(await call("nope.md")).toMatchObject({
      ok: false,
      error: 'Skill "reminder-writing" has no reference "nope.md". Its files: references/examples.md, assets/logo.png.',
    });
  });
});

describe("run_skill and skill_<name>", () => {
  it("returns an instruction-only skill's instructions with the request, touching no file", async () => {
    let fsCalls = 0;
    const hook = createHook({ init: (_id, type) => void (type.startsWith("FSREQ") && fsCalls++) });
    hook.enable();
    const text = await fx.output<string>("run_skill", { skill_name: "reminder-writing", input: "remind me at 5" });
    hook.disable();
    expect(fsCalls).toBe(0);
    expect(text).toContain("[Instruction-Only Skill: reminder-writing]");
    expect(text).toContain("Start with a verb.");
    expect(text).toContain("remind me at 5");
  });

  it("runs an executable skill's entry with the request as its argument", async () => {
    const report = await fx.output<ScriptReport>("run_skill", { skill_name: "word-count", input: "one two three" });
    expect(report).toMatchObject({ exitCode: 0, stdout: "3\n", script: "scripts/count.py" });
  });

  it("skill_<name> runs the skill, and the run is reported on the bus", async () => {
    execs.length = 0;
    const report = await fx.output<ScriptReport>("skill_word_count", { input: "a b" });
    expect(report.stdout).toBe("2\n");
    expect(execs).toEqual([{ skill: "word-count", script: "scripts/count.py", exitCode: 0, durationMs: report.durationMs }]);
    expect(fx.logs.some((r) => r.event === "skill.exec" && r.skill === "word-count")).toBe(true);
  });
});

describe("equip_skill", () => {
  it("keeps a skill equipped for the session across turns, and says so once", async () => {
    const equipped: Array<SkillEvents["skill.equipped"]> = [];
    const off = fx.skills.events.on("skill.equipped", (e) => equipped.push(e));
    const ctx = fx.context({ sessionKey: "web:equip-test" });
    expect(await fx.output<string>("equip_skill", { skill_name: "reminder-writing" }, ctx)).toMatch(/is now equipped/);
    expect(await fx.output<string>("equip_skill", { skill_name: "reminder-writing" }, ctx)).toMatch(/was already equipped/);
    off();
    expect(equipped).toEqual([{ session: "web:equip-test", skill: "reminder-writing" }]);
    // A later turn reads it back from the store: it survives whatever happens to the history.
    const section = await fx.skills.equippedSection("web:equip-test");
    expect(section).toContain("## Equipped Skills");
    expect(section).toContain("Start with a verb.");
    expect(await fx.skills.equippedSection("web:other-session")).toBe("");
  });
});

describe("reloading and system skills", () => {
  it("warns when a system skill names a tool its handler does not register", () => {
    const warning = fx.logs.find((r) => r.msg === "system skill names a tool its handler does not register");
    expect(warning).toMatchObject({ skill: "read-file-doc", handler: "filesystem", tool: "read_file", registeredBy: null });
  });

  it("reload_skills picks up changes and reports problems", async () => {
    await writeSkill(fx.extraDir, "broken", { skillMd: "---\nname: broken\n---\nno description" });
    await writeFile(join(fx.extraDir, "word-count", "scripts", "count.py"), "print('changed')\n");
    const report = await fx.output<{ skills: number; problems: string[] }>("reload_skills", {});
    expect(report.skills).toBe(3);
    expect(report.problems).toEqual([`${join(fx.extraDir, "broken", "SKILL.md")}: fatal: description: is required`]);
    expect((await fx.output<ScriptReport>("skill_word_count", { input: "x" })).stdout).toBe("changed\n");
  });
});

describe.skipIf(!process.env.REDIS_URL)("equipped skills on Redis", () => {
  it("are shared by two gateways on one Redis", async () => {
    const keyPrefix = `test-skills-${randomUUID()}:`;
    const open = () => createStore({ url: process.env.REDIS_URL ?? null, dataDir: "/tmp", log: silentLog, keyPrefix });
    const [a, b] = await Promise.all([open(), open()]);
    try {
      expect(await new EquippedSkills(a).equip("web:shared", "date-helper")).toBe(true);
      expect(await new EquippedSkills(b).list("web:shared")).toEqual(["date-helper"]);
      expect(await new EquippedSkills(b).equip("web:shared", "date-helper")).toBe(false);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
