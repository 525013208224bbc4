/** Shared fixtures of the skills tests: temporary skill folders, in-memory skills and a silent logger. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pino } from "pino";
import { stringify } from "yaml";
import { SkillEventBus } from "../../src/skills/events.js";
import type { Skill } from "../../src/skills/types.js";

export const silentLog = pino({ level: "silent" });

export function newEventBus(): SkillEventBus {
  return new SkillEventBus(silentLog);
}

/** Temporary folders removed by `cleanup()` (call it from afterEach). */
export class TempDirs {
  private readonly dirs: string[] = [];

  async make(prefix = "switchboard-skills-test-"): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

/** SKILL.md text from frontmatter fields and a body. */
export function skillMd(fields: Record<string, unknown>, body = "# Steps\n\nDo the thing."): string {
  return `---\n${stringify(fields)}---\n${body}\n`;
}

export interface SkillFixture {
  /** SKILL.md content; default: a valid one named after the folder. */
  skillMd?: string;
  /** Extra files, by path relative to the skill folder. */
  files?: Record<string, string | Uint8Array>;
}

/** Writes a skill folder under `root` and returns its path. */
export async function writeSkill(root: string, folder: string, fixture: SkillFixture = {}): Promise<string> {
  const dir = join(root, folder);
  const text = fixture.skillMd ?? skillMd({ name: folder, description: `The ${folder} skill, for tests.` });
  await writeFiles(dir, { "SKILL.md": text, ...fixture.files });
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** An in-memory skill, for code that never touches its folder. */
export function makeSkill(name: string, overrides: Partial<Skill> = {}): Skill {
  return {
    name,
    description: `Does ${name} things. Use it when ${name} is needed.`,
    body: `# ${name}\n\nStep one.`,
    dir: join(tmpdir(), "no-such-skill", name),
    origin: "bundled",
    meta: { system: false },
    resources: { scripts: [], references: [], assets: [] },
    type: "instruction",
    ...overrides,
  };
}
