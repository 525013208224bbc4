import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSkills, type SkillsFixture } from "./fixture.js";
import { skillMd, writeSkill } from "./helpers.js";

let fx: SkillsFixture;

beforeEach(async () => {
  fx = await startSkills({ config: { watch: true, watchDebounceMs: 50 } });
});

afterEach(() => fx.close());

/** Checks list_skills after every reload until `check` holds; fails after a few seconds. */
async function eventually(check: (skills: Map<string, string>) => boolean): Promise<void> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    // Subscribed before looking, so a reload that ends in between is not missed.
    let off = () => {};
    const reloaded = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no reload came before the deadline")), deadline - Date.now());
      const unsubscribe = fx.skills.events.on("skill.registered", () => resolve());
      off = () => {
        clearTimeout(timer);
        unsubscribe();
      };
    });
    const listed = await fx.output<Array<{ name: string; description: string }>>("list_skills", {});
    if (check(new Map(listed.map((s) => [s.name, s.description])))) {
      off();
      return;
    }
    await reloaded.finally(off);
  }
}

describe("hot reload", () => {
  it("sees a skill added, changed and removed without a restart; the catalog follows", async () => {
    const dir = await writeSkill(fx.userDir, "fresh-skill", { files: { "scripts/go.sh": "echo go" } });
    await eventually((skills) => skills.has("fresh-skill"));
    expect(fx.skills.catalog()).toContain("- fresh-skill [Executable]");
    expect(fx.handlers.hasTool("skill_fresh_skill")).toBe(true);

    await writeSkill(fx.userDir, "fresh-skill", { skillMd: skillMd({ name: "fresh-skill", description: "Changed." }) });
    await eventually((skills) => skills.get("fresh-skill") === "Changed.");
    expect(fx.skills.catalog()).toContain("- fresh-skill [Executable]: Changed.");

    await rm(dir, { recursive: true });
    await eventually((skills) => !skills.has("fresh-skill"));
    expect(fx.skills.catalog()).toBe("");
    // The removed skill's own tool is gone from the registry, not left behind answering errors.
    expect(fx.handlers.hasTool("skill_fresh_skill")).toBe(false);
    const outcome = await fx.call("skill_fresh_skill", { input: "x" });
    expect(outcome).toMatchObject({ ok: false, code: "unknown_tool" });
  });

  it("also watches the extra folders", async () => {
    await writeSkill(join(fx.extraDir), "extra-skill");
    await eventually((skills) => skills.has("extra-skill"));
  });
});
