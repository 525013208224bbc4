import { execFileSync } from "node:child_process";
import { readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { c as createTar } from "tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InstallError } from "../../src/skills/installer.js";
import { startSkills, type SkillsFixture } from "./fixture.js";
import { TempDirs, skillMd, writeFiles, writeSkill } from "./helpers.js";
import { zipArchive } from "./zip.js";

const temp = new TempDirs();
let fx: SkillsFixture;

beforeEach(async () => {
  fx = await startSkills({
    prepare: async ({ bundledDir, extraDir }) => {
      await writeSkill(bundledDir, "date-helper");
      await writeSkill(extraDir, "run-shell", {
        skillMd: skillMd({ name: "run-shell", description: "Shell.", system: true, handler: "filesystem", "tool-name": "run_shell" }),
      });
    },
  });
});

afterEach(async () => {
  await fx.close();
  await temp.cleanup();
});

const PDF_SKILL = {
  "SKILL.md": skillMd({ name: "pdf-tools", description: "Work with PDF files." }),
  "scripts/extract.py": "print('tables')",
  "references/spec.md": "# Spec",
};

/** What the user skills folder holds, ignoring nothing: a refused install must leave no trace. */
const userFolder = async () => (await readdir(fx.userDir)).sort();

async function installError(source: string): Promise<InstallError> {
  const error = await fx.skills.service.install(source).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(InstallError);
  return error as InstallError;
}

describe("install_skill sources", () => {
  it("installs from a folder, named after the skill, and the registry picks it up", async () => {
    const source = join(await temp.make(), "pdf-tools-main");
    await writeFiles(source, PDF_SKILL);
    const report = await fx.skills.service.install(source);
    expect(report).toMatchObject({ name: "pdf-tools", type: "executable", replaced: false, scripts: ["scripts/extract.py"] });
    expect(report.dir).toBe(join(fx.userDir, "pdf-tools"));
    expect(await readFile(join(fx.userDir, "pdf-tools", "references", "spec.md"), "utf8")).toBe("# Spec");
    expect(fx.skills.registry.get("pdf-tools")?.origin).toBe("user");
    expect(await userFolder()).toEqual(["pdf-tools"]);
  });

  it("installs from a .zip whose files sit in one top folder", async () => {
    const file = join(await temp.make(), "skill.zip");
    const entries = Object.entries(PDF_SKILL).map(([name, content]) => ({ name: `pdf-tools-1.0/${name}`, content }));
    await writeFile(file, zipArchive([{ name: "pdf-tools-1.0/" }, ...entries]));
    expect(await fx.skills.service.install(file)).toMatchObject({ name: "pdf-tools", type: "executable" });
    expect(fx.skills.registry.get("pdf-tools")?.resources.references).toEqual(["references/spec.md"]);
  });

  it("installs from a .tar.gz and replaces an earlier install of the same skill", async () => {
    const dir = await temp.make();
    await writeFiles(join(dir, "src"), PDF_SKILL);
    const file = join(dir, "skill.tar.gz");
    await createTar({ gzip: true, file, cwd: join(dir, "src") }, ["."]);
    await fx.skills.service.install(file);
    await writeFiles(join(dir, "src"), { "SKILL.md": skillMd({ name: "pdf-tools", description: "Version two." }) });
    await createTar({ gzip: true, file, cwd: join(dir, "src") }, ["."]);
    expect(await fx.skills.service.install(file)).toMatchObject({ name: "pdf-tools", replaced: true });
    expect(fx.skills.registry.get("pdf-tools")?.description).toBe("Version two.");
    expect(await userFolder()).toEqual(["pdf-tools"]);
  });

  const hasGit = (() => {
    try {
      execFileSync("git", ["--version"]);
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasGit)("installs from a git URL", async () => {
    const repo = join(await temp.make(), "pdf-tools.git");
    await writeFiles(repo, PDF_SKILL);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.org", ...args], { cwd: repo, stdio: "ignore" });
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "skill");
    const report = await fx.skills.service.install(`file://${repo}`);
    expect(report).toMatchObject({ name: "pdf-tools", type: "executable" });
    expect((await readdir(report.dir)).sort()).toEqual(["SKILL.md", "references", "scripts"]);
  });
});

describe("install_skill refusals", () => {
  it("refuses a broken skill with the validator's message, and nothing lands", async () => {
    const source = join(await temp.make(), "bad-skill");
    await writeFiles(source, { "SKILL.md": skillMd({ name: "Bad_Skill", description: "d", compatibility: "c".repeat(501) }) });
    const error = await installError(source);
    expect(error.problems).toEqual([
      "name: may only contain lowercase letters a-z, digits and '-'",
      "compatibility: must be at most 500 characters",
    ]);
    expect(error.message).toContain(`cannot install ${source}:`);
    expect(await userFolder()).toEqual([]);
  });

  it("refuses a skill without a description", async () => {
    const source = join(await temp.make(), "no-desc");
    await writeFiles(source, { "SKILL.md": skillMd({ name: "no-desc" }) });
    expect((await installError(source)).problems).toEqual(["description: is required"]);
  });

  it("refuses to replace a bundled skill or a system skill", async () => {
    for (const name of ["date-helper", "run-shell"]) {
      const source = join(await temp.make(), name);
      await writeFiles(source, { "SKILL.md": skillMd({ name, description: "Impostor." }) });
      const error = await installError(source);
      expect(error.problems[0]).toMatch(name === "date-helper" ? /bundled skill/ : /system skill/);
    }
    expect(await userFolder()).toEqual([]);
  });

  it("refuses a folder without SKILL.md, a missing path and an unknown file type", async () => {
    const empty = await temp.make();
    await writeFiles(empty, { "README.md": "hi" });
    expect((await installError(empty)).problems[0]).toMatch(/no SKILL\.md/);
    expect((await installError(join(empty, "nope"))).problems[0]).toMatch(/does not exist/);
    expect((await installError(join(empty, "README.md"))).problems[0]).toMatch(/neither a folder nor/);
  });

  it("refuses archives with paths out of the folder or with links, writing nothing outside", async () => {
    const dir = await temp.make();
    const skill = { name: "SKILL.md", content: PDF_SKILL["SKILL.md"] };
    const cases: Array<[string, Buffer]> = [
      ["traversal.zip", zipArchive([skill, { name: "../escaped.txt", content: "x" }])],
      ["link.zip", zipArchive([skill, { name: "scripts/link.py", content: "/etc/passwd", symlink: true }])],
    ];
    for (const [name, bytes] of cases) {
      await writeFile(join(dir, name), bytes);
      const error = await installError(join(dir, name));
      expect(error.problems.join(" "), name).toMatch(/invalid relative path|not a regular file/);
    }
    const linked = join(dir, "linked");
    await writeFiles(linked, { "SKILL.md": PDF_SKILL["SKILL.md"] });
    await symlink("/etc/passwd", join(linked, "passwd"));
    await createTar({ gzip: true, file: join(dir, "link.tgz"), cwd: linked }, ["."]);
    expect((await installError(join(dir, "link.tgz"))).problems[0]).toMatch(/passwd is not a regular file or folder \(SymbolicLink\)/);
    expect((await readdir(dir)).sort()).toEqual(["link.tgz", "link.zip", "linked", "traversal.zip"]);
    expect(await userFolder()).toEqual([]);
  });
});

describe("install_skill tool", () => {
  it("is refused from the chat unless installFromChat is on", async () => {
    const outcome = await fx.call("install_skill", { source: "/tmp/anything" });
    expect(outcome).toMatchObject({ ok: false, code: "denied", error: expect.stringMatching(/installFromChat/) });
  });

  it("installs when installFromChat is on, and the skill is listed", async () => {
    const open = await startSkills({ config: { installFromChat: true } });
    try {
      const source = join(await temp.make(), "pdf-tools");
      await writeFiles(source, PDF_SKILL);
      const report = await open.output<{ name: string }>("install_skill", { source });
      expect(report.name).toBe("pdf-tools");
      const listed = await open.output<Array<{ name: string }>>("list_skills", {});
      expect(listed.map((s) => s.name)).toContain("pdf-tools");
    } finally {
      await open.close();
    }
  });
});
