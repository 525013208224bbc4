/**
 * The skills service: what the `skills` tools, the agent's prompt and the CLI ask of the skill system. It ties
 * the registry (what is installed), the runner (scripts), the session's equipped skills and the installer
 * together, and reports every run and failure on the event bus.
 */
import { open, realpath } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";
import { suggestToolNames } from "../core/names.js";
import { ToolError, type ToolContext } from "../core/tools.js";
import { resolveInWorkspace } from "../infra/workspace.js";
import { renderSkillCatalog } from "./catalog.js";
import type { SkillsConfig } from "./config.js";
import { formatEquippedSection, formatInstructionRun, formatSkillInfo } from "./disclosure.js";
import type { EquippedSkills } from "./equipped.js";
import type { SkillEventBus } from "./events.js";
import { installSkill, type InstallReport } from "./installer.js";
import type { LoadReport, SkillRegistry } from "./registry.js";
import { resolveReference, resolveScript } from "./resources.js";
import { runScript, type ScriptResult } from "./runner.js";
import { deliverFiles, type Delivery } from "./sandbox.js";
import type { Skill } from "./types.js";
import type { Sandbox } from "../infra/sandbox/index.js";

/** get_skill_reference returns at most this much of a file. */
export const REFERENCE_LIMIT_BYTES = 256 * 1024;

export interface ScriptReport extends ScriptResult {
  skill: string;
  script: string;
  /** Workspace paths the created files were copied to (with destination_path). */
  delivered?: string[];
  skipped?: Delivery["skipped"];
  note?: string;
}

export interface ScriptRequest {
  skill: string;
  script: string;
  args: readonly string[];
  destinationPath?: string | undefined;
}

export interface SkillsServiceDeps {
  config: SkillsConfig;
  registry: SkillRegistry;
  events: SkillEventBus;
  equipped: EquippedSkills;
  userDir: string;
  sandbox: Sandbox;
}

export class SkillsService {
  private catalogText: string | undefined;

  constructor(private readonly deps: SkillsServiceDeps) {
    deps.events.on("skill.registered", () => {
      this.catalogText = undefined;
    });
  }

  /** Level 1 for the system prompt; rendered once per load. `only`: an agent's skills, rendered each time. */
  catalog(only: readonly string[] | null = null): string {
    const { catalogTokenBudget } = this.deps.config;
    if (only !== null) return renderSkillCatalog(this.deps.registry.list().filter((skill) => only.includes(skill.name)), catalogTokenBudget);
    this.catalogText ??= renderSkillCatalog(this.deps.registry.list(), catalogTokenBudget);
    return this.catalogText;
  }

  list(): Skill[] {
    return this.deps.registry.list();
  }

  /** The skill in force, or a ToolError naming the closest skills. */
  require(name: string): Skill {
    const skill = this.deps.registry.get(name.trim());
    if (skill) return skill;
    const close = suggestToolNames(name, this.list().map((s) => s.name));
    const hint = close.length > 0 ? ` Did you mean: ${close.join(", ")}?` : " Call list_skills to see the skills.";
    throw new ToolError(`No skill is named "${name}".${hint}`, "invalid_input");
  }

  info(name: string): string {
    return formatSkillInfo(this.require(name));
  }

  /** Level 3: a text file of references/ or assets/. */
  async reference(name: string, refName: string): Promise<{ path: string; content: string; truncated: boolean }> {
    const skill = this.require(name);
    const path = resolveReference(skill, refName);
    const file = join(skill.dir, ...path.split(posix.sep));
    // The listing had no symlinks; realpath catches one swapped in since.
    const [root, real] = await Promise.all([realpath(skill.dir), realpath(file)]);
    if (!real.startsWith(root + sep)) throw new ToolError(`${path} points outside the skill`, "denied");
    const handle = await open(real, "r");
    try {
      const buffer = Buffer.alloc(REFERENCE_LIMIT_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const bytes = buffer.subarray(0, Math.min(bytesRead, REFERENCE_LIMIT_BYTES));
      if (bytes.subarray(0, 8192).includes(0)) throw new ToolError(`${path} is a binary file, not text`, "invalid_input");
      return { path, content: bytes.toString("utf8"), truncated: bytesRead > REFERENCE_LIMIT_BYTES };
    } finally {
      await handle.close();
    }
  }

  async runScript(request: ScriptRequest, ctx: ToolContext): Promise<ScriptReport> {
    const skill = this.require(request.skill);
    const file = resolveScript(skill, request.script);
    return this.execute(skill, file, request.args, request.destinationPath, ctx);
  }

  /** Instruction-only skills answer with their instructions (there is nothing to run); executable ones run their entry. */
  async runSkill(name: string, input: string, ctx: ToolContext): Promise<string | ScriptReport> {
    const skill = this.require(name);
    if (skill.type === "instruction" || !skill.entry) return formatInstructionRun(skill, input);
    return this.execute(skill, skill.entry, [input], undefined, ctx);
  }

  async equip(name: string, sessionKey: string): Promise<string> {
    const skill = this.require(name);
    const added = await this.deps.equipped.equip(sessionKey, skill.name);
    if (added) this.deps.events.emit("skill.equipped", { session: sessionKey, skill: skill.name });
    const status = added ? "is now equipped" : "was already equipped";
    return `Skill "${skill.name}" ${status}: its instructions stay with you for the rest of this conversation.\n\n${formatSkillInfo(skill)}`;
  }

  /** The equipped skills' section of a session's system prompt; "" when none. */
  async equippedSection(sessionKey: string): Promise<string> {
    const names = await this.deps.equipped.list(sessionKey);
    const skills = names.flatMap((n) => this.deps.registry.get(n) ?? []);
    return formatEquippedSection(skills, this.deps.config.equippedTokenBudget);
  }

  async install(source: string): Promise<InstallReport> {
    const report = await installSkill(source, { userDir: this.deps.userDir, registry: this.deps.registry });
    await this.reload();
    return report;
  }

  reload(): Promise<LoadReport> {
    return this.deps.registry.load();
  }

  private async execute(
    skill: Skill,
    file: string,
    args: readonly string[],
    destinationPath: string | undefined,
    ctx: ToolContext,
  ): Promise<ScriptReport> {
    // Refused before the run, so a bad destination never costs a run.
    if (destinationPath !== undefined) await resolveInWorkspace(ctx.workspaceDir, destinationPath);
    const { config, events } = this.deps;
    const run = {
      skill: skill.name,
      skillDir: skill.dir,
      file,
      args,
      grantedEnv: config.env[skill.name] ?? {},
      timeoutMs: config.scriptTimeoutMs,
      maxOutputBytes: config.maxOutputBytes,
      signal: ctx.signal,
    };
    try {
      const report = await runScript(this.deps.sandbox, run, async (result, workDir): Promise<ScriptReport> => {
        const base = { skill: skill.name, script: file, ...result };
        if (destinationPath === undefined) {
          const note = result.files.length > 0 ? "Created files are discarded; pass destination_path to keep them." : undefined;
          return note ? { ...base, note } : base;
        }
        const target = (path: string) => resolveInWorkspace(ctx.workspaceDir, join(destinationPath, path));
        const delivery = await deliverFiles(workDir, result.files, target, config.maxArtifactBytes);
        const root = await realpath(ctx.workspaceDir);
        return { ...base, delivered: delivery.delivered.map((d) => relative(root, d.to)), skipped: delivery.skipped };
      });
      events.emit("skill.exec", { skill: skill.name, script: file, exitCode: report.exitCode, durationMs: report.durationMs });
      return report;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      events.emit("skill.error", { skill: skill.name, error: message });
      throw new ToolError(`Skill "${skill.name}": ${file} could not run: ${message}`, "failed");
    }
  }
}
