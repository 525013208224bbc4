/** `switchboard skills list | info NAME | validate [DIR] | install SOURCE`. */
import type { Command } from "commander";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Logger } from "../infra/log.js";
import { shorten, typeTag } from "./catalog.js";
import type { SkillsConfig } from "./config.js";
import { formatSkillInfo } from "./disclosure.js";
import { SkillEventBus } from "./events.js";
import { InstallError, installSkill } from "./installer.js";
import { loadSkill, SKILL_FILE } from "./loader.js";
import { SkillRegistry } from "./registry.js";
import { skillRoots } from "./index.js";
import type { SkillIssue, SkillRoot } from "./types.js";

export interface SkillsCliSetup {
  config: SkillsConfig;
  bundledDir: string;
  userDir: string;
  log: Logger;
}

export interface SkillsCliDeps {
  /** Called when a command runs, after the program has parsed its global options (--config). */
  setup(): Promise<SkillsCliSetup> | SkillsCliSetup;
  /** Where the commands print; standard output by default. */
  out?: (line: string) => void;
}

export function registerSkillsCommands(program: Command, deps: SkillsCliDeps): void {
  const out = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const skills = program.command("skills").description("list, inspect, validate and install skills");

  skills
    .command("list")
    .description("list the skills of every skill folder")
    .action(async () => {
      const { registry, report } = await loadAll(await deps.setup());
      for (const s of registry.list()) out(`${s.name} ${typeTag(s)} (${s.origin}): ${shorten(s.description, 80)}`);
      out(`${report.skills} skill(s).`);
      const problems = report.issues.filter((i) => i.level !== "warning").length;
      if (problems > 0) out(`${problems} problem(s) found: run "switchboard skills validate" to see them.`);
    });

  skills
    .command("info")
    .argument("<name>", "the skill's name")
    .description("show a skill as the model sees it, and where it comes from")
    .action(async (name: string) => {
      const { registry } = await loadAll(await deps.setup());
      const skill = registry.get(name);
      if (!skill) {
        out(`No skill is named "${name}".`);
        process.exitCode = 1;
        return;
      }
      out(`${formatSkillInfo(skill)}\n\nDescription: ${skill.description}\nFolder: ${skill.dir} (${skill.origin})`);
      for (const other of registry.candidates(name).slice(0, -1)) out(`Overrides: ${other.dir} (${other.origin})`);
    });

  skills
    .command("validate")
    .argument("[dir]", "a skill folder, or a folder of skills; default: every skill folder")
    .description("check skills against the Agent Skills specification")
    .action(async (dir: string | undefined) => {
      const setup = await deps.setup();
      const issues = dir ? await validateDir(resolve(dir), setup) : (await loadAll(setup)).report.issues;
      for (const issue of issues) out(`${issue.file}: ${issue.level}: ${issue.message}`);
      const failed = issues.some((i) => i.level !== "warning");
      out(failed ? "Validation failed." : "All skills are valid.");
      if (failed) process.exitCode = 1;
    });

  skills
    .command("install")
    .argument("<source>", "a skill folder, a .zip/.tar.gz/.tgz archive, or a git URL")
    .description("validate a skill and install it into the user skills folder")
    .action(async (source: string) => {
      const setup = await deps.setup();
      const { registry } = await loadAll(setup);
      try {
        const report = await installSkill(source, { userDir: setup.userDir, registry });
        out(`${report.replaced ? "Replaced" : "Installed"} ${report.name} [${report.type}] in ${report.dir}`);
        for (const script of report.scripts) out(`  script: ${script}`);
        for (const warning of report.warnings) out(`  warning: ${warning}`);
      } catch (err) {
        if (!(err instanceof InstallError)) throw err;
        out(err.message);
        process.exitCode = 1;
      }
    });
}

/** Loads the configured roots once; the commands report problems themselves, so the log keeps only errors. */
async function loadAll(setup: SkillsCliSetup, roots?: SkillRoot[]) {
  const log = setup.log.child({}, { level: "error" });
  const registry = new SkillRegistry(roots ?? skillRoots(setup.config, setup.bundledDir, setup.userDir), log, new SkillEventBus(log));
  const report = await registry.load();
  return { registry, report };
}

/** One skill folder (it holds SKILL.md), or a folder of skill folders. */
async function validateDir(dir: string, setup: SkillsCliSetup): Promise<SkillIssue[]> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    return [{ level: "fatal", file: dir, message: "is not a folder" }];
  }
  const single = await loadSkill(dir, "extra");
  if (single) return single.issues;
  const { report } = await loadAll(setup, [{ dir, origin: "extra" }]);
  if (report.skills > 0 || report.issues.length > 0) return report.issues;
  return [{ level: "fatal", file: dir, message: `holds no skill: no ${SKILL_FILE} in it or in its folders` }];
}
