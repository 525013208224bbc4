/**
 * The SkillRegistry: every skill of every root, shared by all channels and sessions. Roots are scanned in
 * precedence order (bundled, user, extra dirs); a later root overrides a same-named skill of an earlier one.
 * One bad skill never stops the others: its problems are reported and logged, and it is skipped or loaded anyway.
 */
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Logger } from "../infra/log.js";
import type { SkillEventBus } from "./events.js";
import { loadSkill, SKILL_FILE, type LoadedSkill } from "./loader.js";
import type { Skill, SkillIssue, SkillRoot } from "./types.js";

/** Skill folders read at once; enough to hide file-system latency without exhausting descriptors. */
const LOAD_CONCURRENCY = 32;

export interface LoadReport {
  skills: number;
  issues: SkillIssue[];
}

export class SkillRegistry {
  /** Every skill that loaded, by name, in root order: the last one is in force. */
  private byName = new Map<string, Skill[]>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly roots: readonly SkillRoot[],
    private readonly log: Logger,
    private readonly events: SkillEventBus,
  ) {}

  /** Scans all roots and swaps in the result at once; calls made while one runs wait their turn. */
  load(): Promise<LoadReport> {
    const run = this.queue.then(() => this.scan());
    this.queue = run.catch(() => undefined);
    return run;
  }

  get(name: string): Skill | undefined {
    return this.byName.get(name)?.at(-1);
  }

  /** Every loaded skill of that name, overridden ones first. */
  candidates(name: string): readonly Skill[] {
    return this.byName.get(name) ?? [];
  }

  /**
   * The skills in force, sorted by name. Names are [a-z0-9-] and unique, so comparing code units sorts them as
   * localeCompare would, without paging in ICU's collation data (~1.6 MiB of RSS) at start.
   */
  list(): Skill[] {
    return [...this.byName.values()].map((all) => all.at(-1) as Skill).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  private async scan(): Promise<LoadReport> {
    const next = new Map<string, Skill[]>();
    const issues: SkillIssue[] = [];
    for (const root of this.roots) {
      const seenInRoot = new Map<string, string>();
      for (const loaded of await this.loadRoot(root)) {
        issues.push(...loaded.issues);
        const skill = loaded.skill;
        if (!skill) continue;
        const twin = seenInRoot.get(skill.name);
        if (twin) {
          issues.push({ level: "fatal", file: join(skill.dir, SKILL_FILE), message: `skill "${skill.name}" is already loaded from ${twin}` });
          continue;
        }
        seenInRoot.set(skill.name, skill.dir);
        const earlier = next.get(skill.name);
        if (earlier) this.log.info({ skill: skill.name, dir: skill.dir, overrides: earlier.at(-1)?.dir }, "skill overrides another");
        next.set(skill.name, [...(earlier ?? []), skill]);
      }
    }
    this.byName = next;
    this.reportIssues(issues);
    const skills = this.list();
    this.events.emit("skill.registered", {
      skills: skills.map(({ name, description, type }) => ({ name, description, type })),
    });
    return { skills: skills.length, issues };
  }

  private async loadRoot(root: SkillRoot): Promise<LoadedSkill[]> {
    let folders: string[];
    try {
      const entries = await readdir(root.dir, { withFileTypes: true });
      folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort();
    } catch (err) {
      this.log.debug({ root: root.dir, code: (err as NodeJS.ErrnoException).code }, "skill root not readable; skipped");
      return [];
    }
    const loaded: LoadedSkill[] = [];
    for (let i = 0; i < folders.length; i += LOAD_CONCURRENCY) {
      const batch = folders.slice(i, i + LOAD_CONCURRENCY).map((folder) => loadSkill(join(root.dir, folder), root.origin));
      for (const result of await Promise.all(batch)) if (result) loaded.push(result);
    }
    return loaded;
  }

  private reportIssues(issues: readonly SkillIssue[]): void {
    for (const issue of issues) {
      const fields = { file: issue.file, problem: issue.message };
      if (issue.level === "fatal") {
        this.log.warn(fields, "skill skipped");
        this.events.emit("skill.error", { skill: basename(dirname(issue.file)), error: issue.message });
      } else {
        this.log.warn({ ...fields, severity: issue.level }, "skill loaded with a problem");
      }
    }
  }
}
