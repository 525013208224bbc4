/**
 * The `skills` handler: the model's way into the skill system. list_skills and get_skill_info are
 * levels 1-2 of progressive disclosure; get_skill_info also records the level-3 tools a skill needs
 * (get_skill_reference, run_skill_script, its skill_<name> tool) as disclosed. Executable external skills get a tool of their
 * own, `skill_<name>`, registered as skills load (see skillToolDefinition).
 */
import { z } from "zod";
import { shorten } from "../skills/catalog.js";
import type { SkillsConfig } from "../skills/config.js";
import { REFERENCE_LIMIT_BYTES, type SkillsService } from "../skills/service.js";
import { createSkills, type CreateSkillsOptions, type Skills } from "../skills/index.js";
import type { Skill } from "../skills/types.js";
import type { Logger } from "../infra/log.js";
import type { HandlerRegistry } from "./registry.js";
import {
  implementTool,
  ToolError,
  type ToolContext,
  type ToolDefinition,
  type ToolHandlerSpec,
  type ToolImplementation,
} from "../core/tools.js";

const CATEGORY = "Skills";
const SKILL_TOOL_PREFIX = "skill_";
/** Room for copying the skill in and the created files out, on top of the script's own limit. */
const RUN_OVERHEAD_MS = 30_000;

const skillName = z.string().min(1).describe("The skill's name as listed in the skills catalog, e.g. date-helper");

/** The tool name of an executable skill: `date-helper` becomes `skill_date_helper`. */
export function skillToolName(name: string): string {
  return SKILL_TOOL_PREFIX + name.replaceAll("-", "_");
}

/** Whether a tool name is that of a skill's own tool (no fixed tool of this handler starts with the prefix). */
export function isSkillToolName(toolName: string): boolean {
  return toolName.startsWith(SKILL_TOOL_PREFIX);
}

/** External executable skills get a tool of their own; system skills document a built-in tool instead. */
export function hasSkillTool(skill: Skill): boolean {
  return skill.type === "executable" && !skill.meta.system;
}

function toolsToDisclose(skill: Skill): string[] {
  const tools: string[] = [];
  if (skill.resources.references.length + skill.resources.assets.length > 0) tools.push("get_skill_reference");
  if (skill.resources.scripts.length > 0) tools.push("run_skill_script");
  if (hasSkillTool(skill)) tools.push(skillToolName(skill.name), "run_skill");
  return tools;
}

/** Returns `text` (what the model reads about `skill`) after disclosing the tools the skill needs. */
function disclosing(ctx: ToolContext, skill: Skill, text: string): string {
  for (const tool of toolsToDisclose(skill)) ctx.disclosedTools.add(tool);
  return text;
}

/** An agent that lists its skills reaches no other skill, whichever tool asks for it. */
function withinAgentSkills(implementation: ToolImplementation, skillOf: (input: unknown) => unknown): ToolImplementation {
  return implementTool(implementation.definition, async (input, ctx) => {
    const skill = skillOf(input);
    const allowed = ctx.agent?.skills;
    if (allowed && typeof skill === "string" && !allowed.includes(skill.trim())) {
      throw new ToolError(`The skill "${skill}" is not among the skills of this agent (${allowed.join(", ") || "none"}).`, "denied");
    }
    return implementation.run(input, ctx);
  });
}

export function skillsToolImplementations(service: SkillsService, config: SkillsConfig): ToolImplementation[] {
  return skillsTools(service, config).map((tool) => withinAgentSkills(tool, (input) => (input as { skill_name?: unknown }).skill_name));
}

function skillsTools(service: SkillsService, config: SkillsConfig): ToolImplementation[] {
  const runTimeoutMs = config.scriptTimeoutMs + RUN_OVERHEAD_MS;
  return [
    implementTool(
      {
        name: "list_skills",
        category: CATEGORY,
        shortDescription: "List the installed skills with their type and a short description",
        description: [
          "Lists every installed skill: name, type (instruction or executable), where it comes from and a short",
          "description. The skills catalog in your instructions may show only names when there are many skills.",
          "",
          "When to use: to find a skill for a task when the catalog does not show enough detail.",
          "",
          "Example: list_skills({})",
        ].join("\n"),
        input: z.object({}),
        risk: "read",
      },
      async () =>
        service.list().map((s) => ({
          name: s.name,
          type: s.type,
          description: shorten(s.description, 160),
          origin: s.origin,
          ...(s.meta.system && s.meta.toolName ? { documentsTool: s.meta.toolName } : {}),
        })),
    ),
    implementTool(
      {
        name: "get_skill_info",
        category: CATEGORY,
        shortDescription: "Read a skill's full instructions, resources and how to run its scripts",
        description: [
          "Returns a skill's full instructions (the body of its SKILL.md), the files it ships under scripts/,",
          "references/ and assets/, and how to run its scripts. After this call the tools the skill needs",
          "(run_skill_script, get_skill_reference, its own skill_<name> tool) can be called.",
          "",
          "When to use: before using any skill from the skills catalog, to learn what it says to do.",
          "",
          'Example: get_skill_info({"skill_name": "date-helper"})',
        ].join("\n"),
        input: z.object({ skill_name: skillName }),
        risk: "read",
      },
      async (input, ctx) => disclosing(ctx, service.require(input.skill_name), service.info(input.skill_name)),
    ),
    implementTool(
      {
        name: "get_skill_reference",
        category: CATEGORY,
        shortDescription: "Read a text file from a skill's references/ or assets/ folder",
        description: [
          "Returns the text of one file a skill ships under references/ (or a text file under assets/), as",
          `listed by get_skill_info under Available resources. At most ${REFERENCE_LIMIT_BYTES / 1024} KB are returned.`,
          "",
          "When to use: when a skill's instructions point to a reference document or a template.",
          "",
          'Example: get_skill_reference({"skill_name": "reminder-writing", "ref_name": "examples.md"})',
        ].join("\n"),
        input: z.object({
          skill_name: skillName,
          ref_name: z.string().min(1).describe("File name under references/ or assets/, e.g. examples.md"),
        }),
        risk: "read",
      },
      async (input) => service.reference(input.skill_name, input.ref_name),
    ),
    implementTool(
      {
        name: "run_skill_script",
        category: CATEGORY,
        shortDescription: "Run one of a skill's scripts with arguments and get its output",
        description: [
          "Runs a script from a skill's scripts/ folder (Python, Bash, Node or WASM) without a shell, in a fresh",
          "work directory, and returns its exit code, stdout, stderr, duration and the files it created.",
          "",
          "When to use: when a skill's instructions (read with get_skill_info) say to run one of its scripts.",
          "",
          "Caveats:",
          `- The script is stopped after ${config.scriptTimeoutMs} ms; stdout and stderr are each cut at`,
          `  ${config.maxOutputBytes} bytes.`,
          "- Arguments are passed as they are, one string each; there is no shell, so quoting is not needed.",
          "- Files the script creates are discarded unless destination_path names a folder in your workspace",
          "  to copy them into.",
          "",
          'Example: run_skill_script({"skill_name": "date-helper", "script_name": "datetime.mjs", "args": ["now", "Asia/Tokyo"]})',
        ].join("\n"),
        input: z.object({
          skill_name: skillName,
          script_name: z.string().min(1).describe("File name under the skill's scripts/ folder, e.g. tz.py"),
          args: z.array(z.string()).max(100).default([]).describe("Command-line arguments, one string each"),
          destination_path: z
            .string()
            .min(1)
            .optional()
            .describe("Workspace folder to copy the created files into, e.g. output/"),
        }),
        risk: "exec",
        timeoutMs: runTimeoutMs,
      },
      async (input, ctx) =>
        service.runScript(
          { skill: input.skill_name, script: input.script_name, args: input.args, destinationPath: input.destination_path },
          ctx,
        ),
    ),
    implementTool(
      {
        name: "run_skill",
        category: CATEGORY,
        shortDescription: "Use a skill on a request: run it, or get its instructions to follow",
        description: [
          "Applies a skill to the user's request. An executable skill runs its main script with the request",
          "as its one argument and returns the output. An instruction-only skill returns its instructions",
          "together with the request, for you to follow.",
          "",
          "When to use: when a skill fits the request as a whole and you do not need a particular script.",
          "",
          'Example: run_skill({"skill_name": "date-helper", "input": "now Europe/Paris"})',
        ].join("\n"),
        input: z.object({
          skill_name: skillName,
          input: z.string().describe("The user's request, in their words"),
        }),
        risk: "exec",
        timeoutMs: runTimeoutMs,
      },
      async (input, ctx) => service.runSkill(input.skill_name, input.input, ctx),
    ),
    implementTool(
      {
        name: "equip_skill",
        category: CATEGORY,
        shortDescription: "Keep a skill's instructions active for the rest of this conversation",
        description: [
          "Equips a skill for this conversation: returns its instructions and scripts like get_skill_info,",
          "and keeps them in your instructions on every later turn, even after older messages are summarized.",
          "",
          "When to use: when the user will work with a skill over several messages (a long task, a workflow).",
          "",
          'Example: equip_skill({"skill_name": "reminder-writing"})',
        ].join("\n"),
        input: z.object({ skill_name: skillName }),
        risk: "read",
      },
      async (input, ctx) =>
        disclosing(ctx, service.require(input.skill_name), await service.equip(input.skill_name, ctx.sessionKey)),
    ),
    implementTool(
      {
        name: "install_skill",
        category: CATEGORY,
        shortDescription: "Install a skill from a folder, a .zip or .tar.gz archive, or a git URL",
        description: [
          "Installs a skill into the gateway's user skills folder after validating its SKILL.md. Refuses a",
          "broken skill (with the validator's reasons) and never replaces a bundled or system skill.",
          "",
          "When to use: only when an administrator asks to add a skill and gives its source.",
          "",
          'Example: install_skill({"source": "https://example.org/skills/pdf-tools.git"})',
        ].join("\n"),
        input: z.object({
          source: z.string().min(1).describe("A local folder, a .zip/.tar.gz/.tgz file, or a git URL"),
        }),
        risk: "admin",
        timeoutMs: 180_000,
      },
      async (input) => {
        if (!config.installFromChat) {
          throw new ToolError("Installing skills from the chat is turned off (skills.installFromChat).", "denied");
        }
        return service.install(input.source);
      },
    ),
    implementTool(
      {
        name: "reload_skills",
        category: CATEGORY,
        shortDescription: "Reload all skills from disk and report the problems found",
        description: [
          "Scans the skill folders again and reports how many skills loaded and every problem found (skills",
          "skipped, or loaded with a warning). Skills also reload by themselves when their files change.",
          "",
          "When to use: after an administrator changed skill files and wants the problems listed.",
          "",
          "Example: reload_skills({})",
        ].join("\n"),
        input: z.object({}),
        risk: "admin",
      },
      async () => {
        const report = await service.reload();
        return { skills: report.skills, problems: report.issues.map((i) => `${i.file}: ${i.level}: ${i.message}`) };
      },
    ),
  ];
}

const skillToolInput = z.object({ input: z.string().describe("The request, in the form the skill's instructions ask for") });

/** The `skill_<name>` tool of an executable skill. */
export function skillToolDefinition(skill: Skill, config: SkillsConfig): ToolDefinition<typeof skillToolInput> {
  const name = skillToolName(skill.name);
  const short = shorten(`Run the ${skill.name} skill: ${skill.description}`, 80);
  return {
    name,
    category: CATEGORY,
    // The registry wants 30-80 characters; a very short description is lengthened.
    shortDescription: short.length >= 30 ? short : `${short} (an executable skill)`,
    description: [
      `Runs the executable skill "${skill.name}" on a request and returns its output.`,
      `The skill says: ${shorten(skill.description, 400)}`,
      "",
      `When to use: when the request matches this skill. Call get_skill_info("${skill.name}") first if its`,
      "instructions describe what input it expects.",
      "",
      `Example: ${name}({"input": "..."})`,
    ].join("\n"),
    input: skillToolInput,
    risk: "exec",
    timeoutMs: config.scriptTimeoutMs + RUN_OVERHEAD_MS,
  };
}

/** The `skill_<name>` tool of an executable skill, run by the skills service. */
function skillTool(service: SkillsService, skill: Skill, config: SkillsConfig): ToolImplementation {
  const tool = implementTool(skillToolDefinition(skill, config), (input, ctx) => service.runSkill(skill.name, input.input, ctx));
  return withinAgentSkills(tool, () => skill.name);
}

/** The skills handler as it starts: its fixed tools. The `skill_<name>` tools follow the loaded skills. */
export function createSkillsHandler(service: SkillsService, config: SkillsConfig): ToolHandlerSpec {
  return { name: "skills", tools: skillsToolImplementations(service, config) };
}

/**
 * The skill engine with its tool surface: registers the `skills` handler, keeps the `skill_<name>` tools in step
 * with every (re)load, then loads the skills and starts watching. The agent reads `catalog()` every turn.
 */
export async function setUpSkills(opts: CreateSkillsOptions & { registry: HandlerRegistry }): Promise<Skills> {
  const skills = await createSkills(opts);
  opts.registry.register(createSkillsHandler(skills.service, opts.config));
  skills.events.on("skill.registered", () => {
    const loaded = skills.registry.list();
    registerSkillTools(loaded, { handlers: opts.registry, service: skills.service, config: opts.config, log: opts.log });
    checkSystemSkills(loaded, opts.registry, opts.log);
  });
  await skills.start();
  return skills;
}

/**
 * Keeps the `skill_<name>` tools in step with the loaded skills: tools of removed skills are unregistered, and
 * every current one is registered afresh, so a changed description or schema takes effect.
 */
function registerSkillTools(
  skills: readonly Skill[],
  deps: { handlers: HandlerRegistry; service: SkillsService; config: SkillsConfig; log: Logger },
): void {
  for (const tool of deps.handlers.listTools()) {
    if (deps.handlers.handlerOf(tool.name) === "skills" && isSkillToolName(tool.name)) deps.handlers.unregister(tool.name);
  }
  for (const skill of skills.filter(hasSkillTool)) {
    try {
      deps.handlers.register({ name: "skills", tools: [skillTool(deps.service, skill, deps.config)] });
    } catch (err) {
      deps.log.warn({ err, skill: skill.name }, "skill tool not registered");
    }
  }
}

/** A system skill documents a built-in tool: warn when that tool is not registered by the handler it names. */
function checkSystemSkills(skills: readonly Skill[], handlers: HandlerRegistry, log: Logger): void {
  for (const skill of skills) {
    const { system, handler, toolName } = skill.meta;
    if (!system || !handler || !toolName) continue;
    const actual = handlers.handlerOf(toolName);
    if (actual !== handler) {
      log.warn(
        { skill: skill.name, handler, tool: toolName, registeredBy: actual ?? null },
        "system skill names a tool its handler does not register",
      );
    }
  }
}
