/**
 * The whole configuration: the core settings (src/infra/config/core-schema.ts), each feature's section, and one
 * section per channel module under `channels`. Composed here, at the top, so that no lower layer needs to know
 * every part; each part reads only its own section. config/default.yaml documents every setting.
 */
import { z } from "zod";
import type { ChannelModule } from "./channels/module.js";
import { channelModules } from "./channels/modules.js";
import type { FeatureModule } from "./features/module.js";
import { featureModules } from "./features/modules.js";
import { CORE_ENV_OVERRIDES, CORE_SECRET_PATHS, coreConfigShape, type EnvOverride } from "./infra/config/core-schema.js";
import { collectSecretsAt, getPath } from "./infra/config/secrets.js";
import { loadConfigWith, type LoadConfigOptions } from "./infra/config/load.js";

export { ConfigError, type LoadConfigOptions } from "./infra/config/load.js";

/** The channel modules a gateway is built with: the list in src/channels/modules.ts unless a caller (a test) adds one. */
export type ChannelModules = readonly ChannelModule[];
/** The feature modules, likewise: src/features/modules.ts unless a caller adds one. */
export type FeatureModules = readonly FeatureModule[];

/** The modules of one gateway; the config, the app, doctor and the CLI are built from the same pair. */
export interface Modules {
  channels?: ChannelModules;
  features?: FeatureModules;
}

type ChannelSections = { [M in (typeof channelModules)[number] as M["name"]]: M["configSchema"] };
type FeatureSections = { [M in (typeof featureModules)[number] as M["name"]]: M["configSchema"] };

function schemaWith<C extends Record<string, z.ZodType>, F extends Record<string, z.ZodType>>(channels: C, features: F) {
  return z.strictObject({
    ...coreConfigShape,
    ...features,
    // Every section has defaults, so an absent `channels` parses.
    channels: z.strictObject(channels).prefault({} as z.input<z.ZodObject<C>>),
  });
}

const sectionsOf = (modules: readonly { name: string; configSchema: z.ZodType }[]) =>
  Object.fromEntries(modules.map((module) => [module.name, module.configSchema]));

export const configSchema = schemaWith(sectionsOf(channelModules) as ChannelSections, sectionsOf(featureModules) as FeatureSections);

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

function listsOf(modules: Modules): { channels: ChannelModules; features: FeatureModules } {
  return { channels: modules.channels ?? channelModules, features: modules.features ?? featureModules };
}

/**
 * The schema for other lists of modules. Their sections beyond the built-in ones are not in the static Config
 * type; their module reads them with channelSettings() / featureSettings().
 */
export function configSchemaFor(modules: Modules): z.ZodType<Config, ConfigInput> {
  const { channels, features } = listsOf(modules);
  return schemaWith(sectionsOf(channels), sectionsOf(features)) as unknown as z.ZodType<Config, ConfigInput>;
}

/** Dotted paths of settings whose values must never be shown. */
export function secretPathsFor(modules: Modules = {}): string[] {
  const { channels, features } = listsOf(modules);
  return [
    ...CORE_SECRET_PATHS,
    ...features.flatMap((module) => (module.secretPaths ?? []).map((path) => `${module.name}.${path}`)),
    ...channels.flatMap((module) => module.secretPaths.map((path) => `channels.${module.name}.${path}`)),
  ];
}

export const SECRET_PATHS: readonly string[] = secretPathsFor();

/** Environment variables that override the files, and the setting each one sets. */
export function envOverridesFor(modules: Modules = {}): Record<string, EnvOverride> {
  const { channels, features } = listsOf(modules);
  const within = (prefix: string, overrides: Readonly<Record<string, EnvOverride>> = {}) =>
    Object.entries(overrides).map(([name, o]) => [name, { ...o, path: `${prefix}.${o.path}` }] as const);
  return {
    ...CORE_ENV_OVERRIDES,
    ...Object.fromEntries(features.flatMap((module) => within(module.name, module.envOverrides))),
    ...Object.fromEntries(channels.flatMap((module) => within(`channels.${module.name}`, module.envOverrides))),
  };
}

export const ENV_OVERRIDES: Readonly<Record<string, EnvOverride>> = envOverridesFor();

/**
 * config/default.yaml, then the user's file, then environment variables; throws a ConfigError listing every
 * problem. `modules` defaults to the built-in channels.
 */
export function loadConfig(opts: LoadConfigOptions & { modules?: Modules } = {}): Config {
  const { modules = {}, ...load } = opts;
  const checks = (config: Config) => crossChecks(config, listsOf(modules));
  return loadConfigWith({ schema: configSchemaFor(modules), envOverrides: envOverridesFor(modules), secretPaths: secretPathsFor(modules), crossChecks: checks }, load);
}

/** The secret values in force, for redaction. */
export function collectSecrets(config: Config, modules: Modules = {}): string[] {
  const { features } = listsOf(modules);
  const unplaced = features.flatMap((module) => module.secretsOf?.(featureSettings(config, module)) ?? []);
  return collectSecretsAt(config, secretPathsFor(modules), unplaced);
}

/** The section of one feature, as its module's schema parsed it. */
export function featureSettings(config: Config, module: Pick<FeatureModule, "name">): unknown {
  return (config as Record<string, unknown>)[module.name];
}

/** The section of one channel, as its module's schema parsed it. */
export function channelSettings(config: Config, module: ChannelModule): unknown {
  return (config.channels as Record<string, unknown>)[module.name];
}

/** A channel is on when enabled explicitly, or (enabled: null) when all its credentials are present. */
export function enabledChannels(config: Config, modules: ChannelModules = channelModules): ChannelModule[] {
  return modules.filter((module) => {
    const enabled = getPath(channelSettings(config, module), "enabled");
    if (typeof enabled === "boolean") return enabled;
    return module.credentials.every((c) => typeof getPath(channelSettings(config, module), c.field) === "string");
  });
}

/** Rules that involve more than one setting. */
function crossChecks(config: Config, { channels: modules, features }: { channels: ChannelModules; features: FeatureModules }): string[] {
  const problems: string[] = features.flatMap((module) => {
    const sections = Object.fromEntries((module.reads ?? []).map((name) => [name, featureSettings(config, { name })]));
    return module.crossChecks?.(featureSettings(config, module), config, sections) ?? [];
  });
  for (const module of modules) {
    const settings = channelSettings(config, module);
    if (getPath(settings, "enabled") !== true) continue;
    for (const { field, env } of module.credentials) {
      if (typeof getPath(settings, field) !== "string") {
        problems.push(`channels.${module.name}.enabled = true: channels.${module.name}.${field} is not set (set ${env})`);
      }
    }
  }
  const known = new Set<string>(modules.map((module) => module.name));
  for (const [list, ids] of [["owners", config.access.owners], ["allowFrom", config.access.allowFrom]] as const) {
    ids.forEach((id, index) => {
      const channel = id.slice(0, id.indexOf(":"));
      if (!known.has(channel)) problems.push(`access.${list}.${index} = "${id}": names no channel (known: ${[...known].join(", ")})`);
    });
  }
  return problems;
}
