import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SkillEvents } from "../../src/skills/events.js";
import { SkillRegistry } from "../../src/skills/registry.js";
import type { SkillRoot } from "../../src/skills/types.js";
import { captureLog } from "../helpers/captured-log.js";
import { TempDirs, newEventBus, skillMd, writeFiles, writeSkill } from "./helpers.js";

const temp = new TempDirs();
afterEach(() => temp.cleanup());

async function threeRoots(): Promise<SkillRoot[]> {
  return [
    { dir: await temp.make(), origin: "bundled" },
    { dir: await temp.make(), origin: "user" },
    { dir: await temp.make(), origin: "extra" },
  ];
}

describe("SkillRegistry loading", () => {
  it("loads every root; a later root overrides a same-named skill and the override is logged", async () => {
    const [bundled, user, extra] = (await threeRoots()) as [SkillRoot, SkillRoot, SkillRoot];
    await writeSkill(bundled.dir, "shared");
    await writeSkill(bundled.dir, "only-bundled");
    await writeSkill(user.dir, "shared");
    await writeSkill(extra.dir, "shared");
    await writeSkill(extra.dir, "only-extra");
    const { log, logs } = captureLog([]);
    const registry = new SkillRegistry([bundled, user, extra], log, newEventBus());

    const report = await registry.load();

    expect(report.skills).toBe(3);
    expect(registry.list().map((s) => s.name)).toEqual(["only-bundled", "only-extra", "shared"]);
    expect(registry.get("shared")?.origin).toBe("extra");
    expect(registry.candidates("shared").map((s) => s.origin)).toEqual(["bundled", "user", "extra"]);
    const overrides = logs.filter((r) => r.msg === "skill overrides another");
    expect(overrides.map((r) => [r.dir, r.overrides])).toEqual([
      [join(user.dir, "shared"), join(bundled.dir, "shared")],
      [join(extra.dir, "shared"), join(user.dir, "shared")],
    ]);
  });

  it("skips a bad skill with a warning naming its file, and loads the others", async () => {
    const root = await temp.make();
    await writeSkill(root, "good");
    const broken = await writeSkill(root, "broken", { skillMd: "---\nname: broken\ndescription: [oops\n---\n" });
    await writeSkill(root, "no-description", { skillMd: skillMd({ name: "no-description" }) });
    await writeFiles(join(root, "not-a-skill"), { "README.md": "hello" });
    const { log, logs } = captureLog([]);
    const events = newEventBus();
    const errors: Array<SkillEvents["skill.error"]> = [];
    events.on("skill.error", (e) => errors.push(e));

    const report = await new SkillRegistry([{ dir: root, origin: "user" }], log, events).load();

    expect(report.skills).toBe(1);
    const skipped = logs.filter((r) => r.msg === "skill skipped");
    expect(skipped.map((r) => r.file).sort()).toEqual([join(broken, "SKILL.md"), join(root, "no-description", "SKILL.md")].sort());
    expect(skipped.every((r) => r.level === 40 && typeof r.problem === "string")).toBe(true);
    expect(errors.map((e) => e.skill).sort()).toEqual(["broken", "no-description"]);
  });

  it("loads a name/folder mismatch with a warning in the log", async () => {
    const root = await temp.make();
    await writeSkill(root, "folder-name", { skillMd: skillMd({ name: "declared-name", description: "d" }) });
    const { log, logs } = captureLog([]);
    const registry = new SkillRegistry([{ dir: root, origin: "user" }], log, newEventBus());
    await registry.load();
    expect(registry.get("declared-name")?.dir).toBe(join(root, "folder-name"));
    expect(logs.some((r) => r.msg === "skill loaded with a problem" && String(r.problem).includes("does not match"))).toBe(true);
  });

  it("keeps the first of two folders of one root that declare the same name", async () => {
    const root = await temp.make();
    await writeSkill(root, "a-first", { skillMd: skillMd({ name: "same", description: "first" }) });
    await writeSkill(root, "b-second", { skillMd: skillMd({ name: "same", description: "second" }) });
    const registry = new SkillRegistry([{ dir: root, origin: "user" }], captureLog([]).log, newEventBus());
    const report = await registry.load();
    expect(registry.get("same")?.description).toBe("first");
    expect(report.issues.some((i) => i.level === "fatal" && i.message.includes("already loaded"))).toBe(true);
  });

  it("lists scripts, references and assets at load time, leaving symlinks out", async () => {
    const root = await temp.make();
    const outside = await temp.make();
    await writeFiles(outside, { "secret.txt": "top secret" });
    const dir = await writeSkill(root, "rich", {
      files: {
        "scripts/run.py": "print(1)",
        "scripts/lib/util.sh": "echo",
        "references/guide.md": "# Guide",
        "assets/template.txt": "Hi {name}",
        "other/notes.txt": "not a resource",
      },
    });
    await symlink(join(outside, "secret.txt"), join(dir, "references", "leak.md"));
    const registry = new SkillRegistry([{ dir: root, origin: "user" }], captureLog([]).log, newEventBus());
    const report = await registry.load();
    expect(registry.get("rich")?.resources).toEqual({
      scripts: ["scripts/lib/util.sh", "scripts/run.py"],
      references: ["references/guide.md"],
      assets: ["assets/template.txt"],
    });
    expect(report.issues.map((i) => i.message)).toContain("symbolic link references/leak.md is ignored");
  });

  it("emits skill.registered with every skill after a load, and tolerates a missing root", async () => {
    const root = await temp.make();
    await writeSkill(root, "tool", { files: { "main.sh": "echo hi" } });
    const events = newEventBus();
    const seen: Array<SkillEvents["skill.registered"]> = [];
    events.on("skill.registered", (e) => seen.push(e));
    const registry = new SkillRegistry(
      [
        { dir: join(root, "missing"), origin: "bundled" },
        { dir: root, origin: "user" },
      ],
      captureLog([]).log,
      events,
    );
    await registry.load();
    expect(seen).toEqual([{ skills: [{ name: "tool", description: "The tool skill, for tests.", type: "executable" }] }]);
  });

  it("runs concurrent loads one after another, each seeing the files as they are", async () => {
    const root = await temp.make();
    const registry = new SkillRegistry([{ dir: root, origin: "user" }], captureLog([]).log, newEventBus());
    const first = registry.load();
    await writeSkill(root, "late");
    const second = registry.load();
    expect((await second).skills).toBe(1);
    expect((await first).skills).toBeLessThanOrEqual(1);
    expect(registry.get("late")).toBeDefined();
  });
});
