/**
 * The features of one gateway, built: each module's parts, with their tools registered and their readiness
 * checks added, and what the rest of the gateway takes from them gathered in one place.
 */
import type { ChatCommand } from "../core/commands.js";
import type { TurnHooks } from "../core/turn-hooks.js";
import type { ReplyHook, ReplyReplacement } from "../core/reply-hook.js";
import type { Hono } from "hono";
import type { FeatureModule, FeatureParts, FeatureServices } from "./module.js";

export interface RunningFeatures {
  commands: ChatCommand[];
  turn: TurnHooks;
  /** The features' hooks after a turn's reply, in list order. */
  afterReply: ReplyHook[];
  /** The features' hooks that may send a turn's reply in another form instead of its text, in list order. */
  replyInstead: ReplyReplacement[];
  consoleRoutes: Record<string, Hono>;
  /** What the named feature's create() returned; undefined for a module not built. */
  partsOf(name: string): FeatureParts | undefined;
  /** In list order, after the channels are up. */
  start(): Promise<void>;
  /** In reverse order, each given the grace period for work in flight. */
  stop(graceMs: number): Promise<void>;
}

/** Builds the modules in order; `settingsOf` reads a module's own section of the configuration. */
export async function createFeatures(
  modules: readonly FeatureModule[],
  settingsOf: (module: Pick<FeatureModule, "name">) => unknown,
  services: FeatureServices,
): Promise<RunningFeatures> {
  const built: Array<{ name: string; parts: FeatureParts }> = [];
  for (const module of modules) {
    const log = services.log.child({ feature: module.name });
    const sections = Object.fromEntries((module.reads ?? []).map((name) => [name, settingsOf({ name })]));
    const partsOf = (name: string): FeatureParts | undefined => built.find((feature) => feature.name === name)?.parts;
    const parts = (await module.create?.({ ...services, log, settings: settingsOf(module), sections, partsOf })) ?? {};
    for (const handler of parts.handlers ?? []) services.registry.register(handler);
    for (const [name, { check, gates }] of Object.entries(parts.readiness ?? {})) services.http.addReadinessCheck(name, check, { gates: gates ?? true });
    built.push({ name: module.name, parts });
  }
  return {
    commands: built.flatMap(({ parts }) => parts.commands ?? []),
    turn: mergeTurnHooks(built),
    afterReply: built.flatMap(({ parts }) => (parts.afterReply ? [parts.afterReply] : [])),
    replyInstead: built.flatMap(({ parts }) => (parts.replyInstead ? [parts.replyInstead] : [])),
    partsOf: (name) => built.find((feature) => feature.name === name)?.parts,
    consoleRoutes: Object.assign({}, ...built.map(({ parts }) => parts.consoleRoutes ?? {})) as Record<string, Hono>,
    start: async () => {
      for (const { parts } of built) await parts.start?.();
    },
    stop: async (graceMs) => {
      for (const { name, parts } of [...built].reverse()) {
        await Promise.resolve(parts.stop?.(graceMs)).catch((err: unknown) => services.log.error({ err, feature: name }, "feature did not stop cleanly"));
      }
    },
  };
}

/** Each hook comes from one feature: two features offering the same one is a wiring error, found at start. */
function mergeTurnHooks(built: ReadonlyArray<{ name: string; parts: FeatureParts }>): TurnHooks {
  const hooks: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  for (const { name, parts } of built) {
    for (const [hook, value] of Object.entries(parts.turn ?? {})) {
      if (value === undefined) continue;
      if (from[hook]) throw new Error(`The features ${from[hook]} and ${name} both provide the turn hook ${hook}`);
      hooks[hook] = value;
      from[hook] = name;
    }
  }
  return hooks as TurnHooks;
}
