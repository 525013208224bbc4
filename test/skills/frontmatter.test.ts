import { afterEach, describe, expect, it } from "vitest";
import { validateFrontmatter } from "../../src/skills/frontmatter.js";
import { loadSkill } from "../../src/skills/loader.js";
import { parseSkillFile } from "../../src/skills/parser.js";
import { TempDirs, skillMd, writeSkill } from "./helpers.js";

const temp = new TempDirs();
afterEach(() => temp.cleanup());

/** Loads SKILL.md `text` from a folder named `folder`; returns the loaded skill and its issues as "level: message". */
async function load(text: string, folder = "my-skill") {
  const root = await temp.make();
  const loaded = await loadSkill(await writeSkill(root, folder, { skillMd: text }), "user");
  if (!loaded) throw new Error("expected a skill folder");
  return { skill: loaded.skill, issues: loaded.issues.map((i) => `${i.level}: ${i.message}`) };
}

const valid = { name: "my-skill", description: "Helps with things." };

describe("SKILL.md parsing", () => {
  it("splits frontmatter and body", () => {
    const parsed = parseSkillFile("---\nname: a\ndescription: b\n---\n\n# Title\nText\n");
    expect(parsed).toEqual({ ok: true, data: { name: "a", description: "b" }, body: "# Title\nText" });
  });

  it("tolerates CRLF line endings and a byte-order mark", () => {
    const parsed = parseSkillFile("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nLine one\r\nLine two\r\n");
    expect(parsed).toEqual({ ok: true, data: { name: "a", description: "b" }, body: "Line one\nLine two" });
  });

  it("reports broken YAML with its line", () => {
    const parsed = parseSkillFile("---\nname: a\ndescription: [unclosed\n---\nbody");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/^broken YAML frontmatter: .*\(SKILL\.md line 3\)$/);
  });

  it("reports a file without frontmatter", () => {
    expect(parseSkillFile("# Just markdown")).toEqual({ ok: false, error: expect.stringMatching(/no YAML frontmatter/) });
  });
});

describe("frontmatter validation (Agent Skills spec)", () => {
  const nameCases: Array<[string, RegExp]> = [
    ["My-Skill", /lowercase/],
    ["my_skill", /lowercase/],
    ["-skill", /start or end with '-'/],
    ["skill-", /start or end with '-'/],
    ["my--skill", /'--'/],
    ["a".repeat(65), /1-64 characters/],
    ["", /1-64 characters/],
  ];
  it.each(nameCases)("name %j is an error, and the skill still loads by its folder name", async (name, message) => {
    const { skill, issues } = await load(skillMd({ name, description: "d" }));
    expect(issues.some((i) => i.startsWith("error: name:") && message.test(i))).toBe(true);
    expect(skill?.name).toBe("my-skill");
  });

  it("accepts names at the limits: one character and 64", async () => {
    for (const name of ["a", "a".repeat(64), "pdf-2-text"]) {
      const result = validateFrontmatter({ name, description: "d" }, name);
      expect(result.issues, name).toEqual([]);
    }
  });

  it("loads a name/folder mismatch under its declared name, with an error", async () => {
    const { skill, issues } = await load(skillMd({ name: "other-name", description: "d" }));
    expect(skill?.name).toBe("other-name");
    expect(issues).toContain('error: name "other-name" does not match its folder "my-skill"');
  });

  it("reports a missing name as an error and uses the folder's", async () => {
    const { skill, issues } = await load(skillMd({ description: "d" }));
    expect(skill?.name).toBe("my-skill");
    expect(issues).toContain("error: name: is required");
  });

  it("skips a skill without a description, or with an empty or non-text one", async () => {
    for (const fields of [{ name: "my-skill" }, { ...valid, description: "   " }, { ...valid, description: 42 }]) {
      const { skill, issues } = await load(skillMd(fields));
      expect(skill, JSON.stringify(fields)).toBeUndefined();
      expect(issues.some((i) => i.startsWith("fatal: description:"))).toBe(true);
    }
  });

  it("skips a skill whose description is over 1024 characters", async () => {
    const { skill, issues } = await load(skillMd({ ...valid, description: "x".repeat(1025) }));
    expect(skill).toBeUndefined();
    expect(issues).toContain("fatal: description: must be at most 1024 characters");
  });

  it("counts characters, not UTF-16 units: 1024 emoji and CJK characters are fine", async () => {
    const description = "日程🗓".repeat(341) + "表";
    expect([...description].length).toBe(1024);
    expect(description.length).toBeGreaterThan(1024);
    const { skill, issues } = await load(skillMd({ ...valid, description }));
    expect(issues).toEqual([]);
    expect(skill?.description).toBe(description);
  });

  it("reports compatibility over 500 characters and drops it", async () => {
    const { skill, issues } = await load(skillMd({ ...valid, compatibility: "c".repeat(501) }));
    expect(issues).toContain("error: compatibility: must be at most 500 characters");
    expect(skill?.meta.compatibility).toBeUndefined();
  });

  it("reads every spec and gateway field", async () => {
    const { skill, issues } = await load(
      skillMd({
        ...valid,
        license: "MIT",
        compatibility: "python>=3.10",
        metadata: { author: "me", version: "1.0" },
        "allowed-tools": "Bash(git:*)  Read",
        system: true,
        handler: "filesystem",
        "tool-name": "read_file",
        category: "File System",
      }),
    );
    expect(issues).toEqual([]);
    expect(skill?.meta).toEqual({
      system: true,
      license: "MIT",
      compatibility: "python>=3.10",
      metadata: { author: "me", version: "1.0" },
      allowedTools: ["Bash(git:*)", "Read"],
      handler: "filesystem",
      toolName: "read_file",
      category: "File System",
    });
  });

  it("reports metadata that is not a map of strings, and a system skill without its tool", async () => {
    const { skill, issues } = await load(skillMd({ ...valid, metadata: { version: 2 }, system: true }));
    expect(issues).toContain("error: metadata.version: Invalid input: expected string, received number");
    expect(issues).toContain("error: a system skill needs `handler` and `tool-name`");
    expect(skill?.meta.metadata).toBeUndefined();
  });

  it("warns about unknown fields but loads", async () => {
    const { skill, issues } = await load(skillMd({ ...valid, "user-invocable": true }));
    expect(issues).toEqual(['warning: unknown field "user-invocable" is ignored']);
    expect(skill?.name).toBe("my-skill");
  });

  it("warns about an empty body but loads", async () => {
    const { skill, issues } = await load(skillMd(valid, ""));
    expect(skill?.body).toBe("");
    expect(issues).toEqual(["warning: the body is empty: the skill gives the model no instructions"]);
  });

  it("skips broken YAML, naming the file and the problem", async () => {
    const root = await temp.make();
    const dir = await writeSkill(root, "my-skill", { skillMd: "---\nname: my-skill\ndescription: a: b\n---\nbody" });
    const loaded = await loadSkill(dir, "user");
    expect(loaded?.skill).toBeUndefined();
    expect(loaded?.issues).toEqual([
      { level: "fatal", file: `${dir}/SKILL.md`, message: expect.stringMatching(/^broken YAML frontmatter/) },
    ]);
  });

  it("skips frontmatter that is not a mapping", async () => {
    const { skill, issues } = await load("---\n- a\n- b\n---\nbody");
    expect(skill).toBeUndefined();
    expect(issues).toEqual(["fatal: frontmatter must be a YAML mapping of fields"]);
  });

  it("treats a folder without SKILL.md as no skill at all", async () => {
    const root = await temp.make();
    expect(await loadSkill(root, "user")).toBeUndefined();
  });
});
