/**
 * Issue 3 end to end: a real agent turn against the fake OpenAI server. The model sees the skills catalog in the
 * system prompt, calls get_skill_info, then run_skill_script (disclosed by get_skill_info), and its reply carries
 * the script's output.
 */
import { testSandbox } from "../helpers/sandbox.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/agent/llm.js";
import { setUpSkills } from "../../src/handlers/skills.js";
import type { Skills } from "../../src/skills/index.js";
import { skillsConfigSchema } from "../../src/skills/config.js";
import { offeredToolNamesOf, systemPromptOf } from "../fakes/openai-server.js";
import { FIXED_NOW, startHarness, type Harness } from "../agent/harness.js";
import { TempDirs, writeSkill } from "./helpers.js";
import { sessionRecords } from "../helpers/session-records.js";

const temp = new TempDirs();
let h: Harness;
let skills: Skills;
let agent: Agent;

beforeEach(async () => {
  h = await startHarness();
  const bundledDir = await temp.make();
  await writeSkill(bundledDir, "dice", {
    files: { "scripts/roll.py": "import sys\nprint('rolled', sys.argv[1], '-> 4')\n" },
  });
  skills = await setUpSkills({
    config: skillsConfigSchema.parse({ watch: false }),
    bundledDir,
    userDir: await temp.make(),
    log: h.log,
    registry: h.registry,
    store: h.store,
    sandbox: await testSandbox(),
  });
  agent = new Agent({
    config: h.config,
    secrets: [],
    model: createModel(h.config.llm),
    registry: h.registry,
    catalog: h.catalog,
    ...sessionRecords(h.store, h.log),
    log: h.log,
    now: () => FIXED_NOW,
    skillsCatalog: () => skills.catalog(),
  });
});

afterEach(async () => {
  await skills.close();
  await h.close();
  await temp.cleanup();
});

describe("an agent turn with a skill", () => {
  it("goes catalog -> get_skill_info -> run_skill_script -> a reply with the script's output", async () => {
    h.fake.enqueue(
      { toolCalls: [{ name: "get_skill_info", arguments: { skill_name: "dice" } }] },
      { toolCalls: [{ name: "run_skill_script", arguments: { skill_name: "dice", script_name: "roll.py", args: ["d6"] } }] },
    );
    h.fake.respondWith(() => {
      const result = h.fake.lastToolResults().at(-1);
      const stdout = (result?.content as { stdout?: string } | undefined)?.stdout ?? "(nothing)";
      return { text: `The script says: ${stdout.trim()}` };
    });

    const result = await h.turn("Roll a d6 for me", { agent });

    expect(result).toEqual({ text: "The script says: rolled d6 -> 4", steps: 3, toolCalls: ["get_skill_info", "run_skill_script"] });
    const [first, second] = h.fake.requests;
    expect(systemPromptOf(first!)).toContain("- dice [Executable]: The dice skill, for tests.");
    expect(offeredToolNamesOf(first!)).toEqual(expect.arrayContaining(["get_skill_info", "run_skill_script", "skill_dice"]));
    expect(second!.body.tools).toEqual(first!.body.tools);
    expect(h.logs.some((r) => r.event === "skill.exec" && r.skill === "dice" && r.exitCode === 0)).toBe(true);
  });
});
