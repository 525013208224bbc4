/**
 * The skill engine, assembled: createSkills builds the registry of every skill root and the service; start()
 * loads them and watches the roots for changes. Its tool surface (the `skills` handler and the `skill_<name>`
 * tools, kept in step with each reload through the events) is src/handlers/skills.ts.
 */
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Logger } from "../infra/log.js";
import { packageFile } from "../infra/package-files.js";
import type { Sandbox } from "../infra/sandbox/index.js";
import type { Store } from "../infra/store/types.js";
import type { SkillsConfig } from "./config.js";
import { EquippedSkills } from "./equipped.js";
import { attachAuditLog, SkillEventBus } from "./events.js";
import { SkillRegistry } from "./registry.js";
import { SkillsService } from "./service.js";
import type { SkillRoot } from "./types.js";
import { watchSkillRoots, type SkillWatcher } from "./watcher.js";

/** The skills shipped with the gateway (`skills/` at the package root). */
export const BUNDLED_SKILLS_DIR = packageFile("skills");

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
  catalog(only?: readonly string[] | null): string;
  /** The equipped skills of a session, for its system prompt; "" when none. */
  equippedSection(sessionKey: string): Promise<string>;
  /** Loads every skill (announcing each through `events`), then watches the roots when configured. */
  start(): Promise<void>;
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
  let watcher: SkillWatcher | undefined;
  return {
    service,
    registry,
    events,
    catalog: (only) => service.catalog(only),
    equippedSection: (sessionKey) => service.equippedSection(sessionKey),
    start: async () => {
      await registry.load();
      if (!config.watch) return;
      watcher = await watchSkillRoots(
        roots.map((root) => root.dir),
        { debounceMs: config.watchDebounceMs, log, onChange: () => registry.load() },
      );
    },
    close: async () => watcher?.close(),
  };
}
