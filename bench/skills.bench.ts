/**
 * Skill loading: cold load time of 1,000 generated skills, the level-1 catalog's size in tokens per skill
 * against the full SKILL.md bodies it stands in for, and the per-call cost of a skill type lookup.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { countTokens } from "../src/core/tokens.js";
import { renderSkillCatalog } from "../src/skills/catalog.js";
import { skillsConfigSchema } from "../src/skills/config.js";
import { SkillEventBus } from "../src/skills/events.js";
import { SkillRegistry } from "../src/skills/registry.js";
import { median } from "./stats.js";
import type { BenchResult } from "./types.js";

const SKILLS = 1_000;
const LOADS = 3;
const LOOKUPS = 1_000_000;
const BODY = "## Steps\n\n1. Read the request.\n2. Do the work carefully.\n3. Report what was done.\n\n".repeat(20);

async function generateSkills(root: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const name = `generated-skill-${String(i).padStart(4, "0")}`;
    const dir = join(root, name);
    await mkdir(join(dir, "scripts"), { recursive: true });
    const description = `Handles task family ${i}: converts, checks and summarizes inputs of kind ${i % 17}. Use it when asked about kind ${i % 17}.`;
    await writeFile(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\n\n${BODY}`);
    // One in three is executable.
    if (i % 3 === 0) await writeFile(join(dir, "scripts", "run.py"), "print('ok')\n");
  }
}


export async function run(): Promise<BenchResult> {
  const root = await mkdtemp(join(tmpdir(), "switchboard-skills-bench-"));
  const log = pino({ level: "silent" });
  try {
    await generateSkills(root, SKILLS);
    const loadMs: number[] = [];
    let registry: SkillRegistry | undefined;
    for (let i = 0; i < LOADS; i++) {
      registry = new SkillRegistry([{ dir: root, origin: "user" }], log, new SkillEventBus(log));
      const started = performance.now();
      await registry.load();
      loadMs.push(performance.now() - started);
    }
    const skills = registry?.list() ?? [];
    const budget = skillsConfigSchema.parse({}).catalogTokenBudget;
    const bodiesTokens = skills.reduce((sum, s) => sum + countTokens(s.body), 0);

    const catalogRows = [10, 100, SKILLS].map((n) => {
      const tokens = countTokens(renderSkillCatalog(skills.slice(0, n), budget));
      const full = skills.slice(0, n).reduce((sum, s) => sum + countTokens(s.body), 0);
      return {
        measure: `catalog of ${n} skills (budget ${budget} tokens)`,
        value: `${tokens} tokens, ${(tokens / n).toFixed(1)}/skill; bodies ${full} tokens (${((100 * tokens) / full).toFixed(1)}%)`,
      };
    });

    const names = skills.map((s) => s.name);
    let executable = 0;
    const started = performance.now();
    for (let i = 0; i < LOOKUPS; i++) if (registry?.get(names[i % names.length] as string)?.type === "executable") executable++;
    const lookupNs = ((performance.now() - started) * 1e6) / LOOKUPS;

    return {
      name: "skills",
      workload: `${SKILLS} generated skills (1 in 3 executable, ~${countTokens(BODY)}-token bodies) in one root; ${LOOKUPS} type lookups`,
      rows: [
        { measure: "cold load, first run", value: `${loadMs[0]?.toFixed(0)} ms (${skills.length} skills)` },
        { measure: `load, median of ${LOADS}`, value: `${median(loadMs).toFixed(0)} ms` },
        ...catalogRows,
        { measure: "all bodies", value: `${bodiesTokens} tokens` },
        { measure: "type lookup (cached)", value: `${lookupNs.toFixed(0)} ns/call (${executable} executable hits)` },
      ],
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
