/**
 * The whole configuration: the core settings (src/infra/config/core-schema.ts), each feature's section, and one
 * section per channel module under `channels`. Composed here, at the top, so that no lower layer needs to know
 * every part; each part reads only its own section. config/default.yaml documents every setting.
 */
import { z } from "zod";
import { accessConfigSchema } from "./access/config.js";
import type { ChannelModule } from "./channels/module.js";
import { channelModules } from "./channels/modules.js";
import { CORE_ENV_OVERRIDES, CORE_SECRET_PATHS, coreConfigShape, type EnvOverride } from "./infra/config/core-schema.js";
import { getPath } from "./infra/config/secrets.js";
import { collectSecretsAt } from "./infra/config/secrets.js";
import { loadConfigWith, type LoadConfigOptions } from "./infra/config/load.js";
import { mcpConfigSchema, mcpSecrets } from "./mcp/config.js";
import { mediaConfigSchema } from "./media/config.js";
import { memoryConfigSchema } from "./memory/config.js";
import { sandboxConfigSchema } from "./sandbox/config.js";
import { schedulerConfigSchema } from "./scheduler/config.js";
import { skillsConfigSchema } from "./skills/config.js";

export { ConfigError, type LoadConfigOptions } from "./infra/config/load.js";

/** The channel modules a gateway is built with: the list in src/channels/modules.ts unless a caller (a test) adds one. */
export type ChannelModules = readonly ChannelModule[];

type ChannelSections = { [M in (typeof channelModules)[number] as M["name"]]: M["configSchema"] };

function schemaWith<C extends Record<string, z.ZodType>>(channels: C) {
  return z.strictObject({
    ...coreConfigShape,
    skills: skillsConfigSchema,
    mcp: mcpConfigSchema,
    scheduler: schedulerConfigSchema,
    media: mediaConfigSchema,
    memory: memoryConfigSchema,
    sandbox: sandboxConfigSchema,
    access: accessConfigSchema,
    // Every section has defaults, so an absent `channels` parses.
    channels: z.strictObject(channels).prefault({} as z.input<z.ZodObject<C>>),
  });
}

const sectionsOf = (modules: ChannelModules) => Object.fromEntries(modules.map((module) => [module.name, module.configSchema]));

export const configSchema = schemaWith(sectionsOf(channelModules) as ChannelSections);

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

/**
 * The schema for another list of modules. Its sections beyond the built-in ones are not in the static Config
 * type; their module reads them with channelSettings().
 */
export function configSchemaFor(modules: ChannelModules): z.ZodType<Config, ConfigInput> {
  return schemaWith(sectionsOf(modules)) as unknown as z.ZodType<Config, ConfigInput>;
}

/** Dotted paths of settings whose values must never be shown. */
export function secretPathsFor(modules: ChannelModules): string[] {
  return [
    ...CORE_SECRET_PATHS,
    "media.stt.apiKey",
    "memory.embeddings.apiKey",
    ...modules.flatMap((module) => module.secretPaths.map((path) => `channels.${module.name}.${path}`)),
  ];
}

export const SECRET_PATHS: readonly string[] = secretPathsFor(channelModules);

/** Environment variables that override the files, and the setting each one sets. */
export function envOverridesFor(modules: ChannelModules): Record<string, EnvOverride> {
  return {
    ...CORE_ENV_OVERRIDES,
    STT_BASE_URL: { path: "media.stt.baseUrl", type: "string" },
    STT_API_KEY: { path: "media.stt.apiKey", type: "string" },
    STT_MODEL: { path: "media.stt.model", type: "string" },
    ...Object.fromEntries(
      modules.flatMap((module) =>
        Object.entries(module.envOverrides).map(([name, o]) => [name, { ...o, path: `channels.${module.name}.${o.path}` }]),
      ),
    ),
  };
}

export const ENV_OVERRIDES: Readonly<Record<string, EnvOverride>> = envOverridesFor(channelModules);

/**
 * config/default.yaml, then the user's file, then environment variables; throws a ConfigError listing every
 * problem. `modules` defaults to the built-in channels.
 */
export function loadConfig(opts: LoadConfigOptions & { modules?: ChannelModules } = {}): Config {
  const { modules = channelModules, ...load } = opts;
  const checks = (config: Config) => crossChecks(config, modules);
  return loadConfigWith({ schema: configSchemaFor(modules), envOverrides: envOverridesFor(modules), secretPaths: secretPathsFor(modules), crossChecks: checks }, load);
}

/** The secret values in force, for redaction. */
export function collectSecrets(config: Config, modules: ChannelModules = channelModules): string[] {
  // MCP servers' env and header values are secrets too; they have no fixed paths.
  return collectSecretsAt(config, secretPathsFor(modules), mcpSecrets(config.mcp));
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
function crossChecks(config: Config, modules: ChannelModules): string[] {
  const problems: string[] = [];
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
