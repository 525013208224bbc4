/**
 * The skill system wired as the gateway wires it, for tests: a real HandlerRegistry, a SQLite store in a temp
 * folder, createSkills over a bundled, a user and optionally an extra root, and tool calls through the registry.
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { ToolContext, ToolOutcome } from "../../src/core/tools.js";
import { skillsConfigSchema } from "../../src/skills/config.js";
import { setUpSkills } from "../../src/handlers/skills.js";
import type { Skills } from "../../src/skills/index.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import type { z } from "zod";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";
import type { Sandbox } from "../../src/infra/sandbox/index.js";
import { testSandbox } from "../helpers/sandbox.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { TempDirs } from "./helpers.js";

export interface SkillsFixture {
  bundledDir: string;
  userDir: string;
  extraDir: string;
  workspaceDir: string;
  skills: Skills;
  handlers: HandlerRegistry;
  store: Store;
  logs: LogRecord[];
  /** A direct-chat context whose workspace is `workspaceDir`. */
  context(overrides?: Partial<ToolContext>): ToolContext;
  call(tool: string, input: unknown, ctx?: ToolContext): Promise<ToolOutcome>;
  /** The output of a call that must succeed. */
  output<T = unknown>(tool: string, input: unknown, ctx?: ToolContext): Promise<T>;
  close(): Promise<void>;
}

export interface FixtureOptions {
  config?: z.input<typeof skillsConfigSchema>;
  /** Use this folder (e.g. the real bundled skills) instead of an empty temporary one. */
  bundledDir?: string;
  /** Where scripts run; default: the test sandbox (bubblewrap). */
  sandbox?: Sandbox;
  /** Writes skills before createSkills loads them. */
  prepare?: (dirs: { bundledDir: string; userDir: string; extraDir: string }) => Promise<void>;
}

export async function startSkills(opts: FixtureOptions = {}): Promise<SkillsFixture> {
  const temp = new TempDirs();
  const base = await temp.make();
  const dirs = { bundledDir: join(base, "bundled"), userDir: join(base, "data", "skills"), extraDir: join(base, "extra") };
  await Promise.all(Object.values(dirs).map((dir) => mkdir(dir, { recursive: true })));
  if (opts.bundledDir) dirs.bundledDir = opts.bundledDir;
  await opts.prepare?.(dirs);
  const { log, logs } = captureLog([]);
  const store = await createStore({ url: null, dataDir: join(base, "data"), log, keyPrefix: `test-${randomUUID()}:` });
  const handlers = new HandlerRegistry({ log, defaultTimeoutMs: 20_000 });
  const config = skillsConfigSchema.parse({ watch: false, extraDirs: [dirs.extraDir], ...opts.config });
  const skills = await setUpSkills({ config, ...dirs, log, registry: handlers, store, sandbox: opts.sandbox ?? (await testSandbox()) });
  const workspaceDir = join(base, "workspace");
  const context = (overrides: Partial<ToolContext> = {}) => makeToolContext({ workspaceDir, log, ...overrides });
  const call = (tool: string, input: unknown, ctx = context()) => handlers.executeByTool(tool, input, ctx);
  return {
    ...dirs,
    workspaceDir,
    skills,
    handlers,
    store,
    logs,
    context,
    call,
    output: async <T>(tool: string, input: unknown, ctx?: ToolContext) => {
      const outcome = await call(tool, input, ctx);
      if (!outcome.ok) throw new Error(`${tool} failed: ${outcome.code}: ${outcome.error}`);
      return outcome.output as T;
    },
    close: async () => {
      await skills.close();
      await store.close();
      await temp.cleanup();
    },
  };
}
