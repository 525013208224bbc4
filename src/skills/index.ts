/**
 * The skill system, assembled: createSkills loads every skill root, registers the `skills` handler with the
 * HandlerRegistry, keeps the `skill_<name>` tools and the catalog in step with each (re)load, and watches the
 * roots for changes. The gateway calls it once; the agent reads `catalog()` every turn.
 */
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createSkillsHandler,
  hasSkillTool,
  skillsToolImplementations,
  isSkillToolName,
  skillToolDefinition,
} from "../handlers/skills.js";
import type { HandlerRegistry } from "../handlers/registry.js";
import type { ToolHandler } from "../handlers/types.js";
import type { Logger } from "../log.js";
import type { Sandbox } from "../sandbox/index.js";
import type { Store } from "../store/types.js";
import type { SkillsConfig } from "./config.js";
import { EquippedSkills } from "./equipped.js";
import { attachAuditLog, SkillEventBus } from "./events.js";
import { SkillRegistry } from "./registry.js";
import { SkillsService } from "./service.js";
import type { Skill, SkillRoot } from "./types.js";
import { watchSkillRoots, type SkillWatcher } from "./watcher.js";

/** The skills shipped with the gateway (`skills/` at the package root, from src/ and from dist/ alike). */
export const BUNDLED_SKILLS_DIR = fileURLToPath(new URL("../../skills", import.meta.url));

/** The user skills folder, where installs go. */
export function userSkillsDir(dataDir: string): string {
  return join(dataDir, "skills");
}

/** The roots in precedence order: bundled, user, then `extraDirs` (relative ones against `cwd`). */
export function skillRoots(config: SkillsConfig, bundledDir: string, userDir: string, cwd = process.cwd()): SkillRoot[] {
  return [
    { dir: bundledDir, origin: "bundled" },
    { dir: userDir, origin: "user" },
    ...config.extraDirs.map((dir) => ({ dir: resolve(cwd, dir), origin: "extra" as const })),
  ];
}

export interface CreateSkillsOptions {
  config: SkillsConfig;
  bundledDir: string;
  userDir: string;
  log: Logger;
  registry: HandlerRegistry;
  store: Store;
  /** Where every script runs. */
  sandbox: Sandbox;
  cwd?: string;
}

export interface Skills {
  readonly service: SkillsService;
  readonly registry: SkillRegistry;
  readonly events: SkillEventBus;
  /** Level-1 text for the system prompt. */
  catalog(): string;
  /** The equipped skills of a session, for its system prompt; "" when none. */
  equippedSection(sessionKey: string): Promise<string>;
  /** Stops the watcher. */
  close(): Promise<void>;
}

export async function createSkills(opts: CreateSkillsOptions): Promise<Skills> {
  const { config, log } = opts;
  const events = new SkillEventBus(log);
  attachAuditLog(events, log);
  // The user folder is created so it can be watched before the first install.
  await mkdir(opts.userDir, { recursive: true });
  const roots = skillRoots(config, opts.bundledDir, opts.userDir, opts.cwd);
  const registry = new SkillRegistry(roots, log, events);
  const service = new SkillsService({ config, registry, events, equipped: new EquippedSkills(opts.store), userDir: opts.userDir, sandbox: opts.sandbox });

  const implementations = skillsToolImplementations(service, config);
  const handler = createSkillsHandler(service, implementations);
  opts.registry.register("skills", handler, implementations.map((impl) => impl.definition));
  events.on("skill.registered", () => {
    const skills = registry.list();
    registerSkillTools(skills, { handlers: opts.registry, handler, config, log });
    checkSystemSkills(skills, opts.registry, log);
  });

  await registry.load();
  let watcher: SkillWatcher | undefined;
  if (config.watch) {
    watcher = await watchSkillRoots(
      roots.map((root) => root.dir),
      { debounceMs: config.watchDebounceMs, log, onChange: () => registry.load() },
    );
  }
  return {
    service,
    registry,
    events,
    catalog: () => service.catalog(),
    equippedSection: (sessionKey) => service.equippedSection(sessionKey),
    close: async () => watcher?.close(),
  };
}

/**
 * Keeps the `skill_<name>` tools in step with the loaded skills: tools of removed skills are unregistered, and
 * every current one is registered afresh, so a changed description or schema takes effect.
 */
function registerSkillTools(
  skills: readonly Skill[],
  deps: { handlers: HandlerRegistry; handler: ToolHandler; config: SkillsConfig; log: Logger },
): void {
  for (const tool of deps.handlers.listTools()) {
    if (deps.handlers.handlerOf(tool.name) === "skills" && isSkillToolName(tool.name)) deps.handlers.unregister(tool.name);
  }
  for (const skill of skills.filter(hasSkillTool)) {
    try {
      deps.handlers.register("skills", deps.handler, [skillToolDefinition(skill, deps.config)]);
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
