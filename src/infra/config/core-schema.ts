/**
 * The core settings every gateway has (data dir, log, HTTP, store, LLM, agent, sessions). Channels and features
 * add their own sections; src/config.ts composes the whole schema. config/default.yaml documents every setting.
 */
import { LOCALES, localeOf } from "../../core/locales.js";
import { z } from "zod";

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

const port = z.number().int().min(0).max(65535);
const duration = z.number().int().positive();
const nullableString = z.string().min(1).nullable();

/** A model's prices in currency units per million tokens; cached input costs what input does unless given. */
export const modelPricesSchema = z.strictObject({
  input: z.number().min(0),
  cachedInput: z.number().min(0).nullable().default(null),
  output: z.number().min(0),
});
export type ModelPrices = z.output<typeof modelPricesSchema>;

const provider = z.enum(["openai-compatible", "anthropic"]);
const contextWindow = z.number().int().positive().nullable().default(null);

/** One entry of `llm.models`: a model at a provider, tried in the order `llm.primary`, `llm.fallbacks` give. */
export const modelEntrySchema = z.strictObject({
  provider: provider.default("openai-compatible"),
  baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
  apiKey: nullableString.default(null),
  model: z.string().min(1),
  vision: z.boolean().default(false),
  reasoning: z.boolean().default(false),
  contextWindow,
  prices: modelPricesSchema.nullable().default(null),
});
export type ModelEntrySettings = z.output<typeof modelEntrySchema>;

/** An entry's name: a word, as config keys and metric labels take it. */
const entryName = z.string().regex(/^[A-Za-z0-9][\w.-]*$/, "must be a name of letters, digits, '.', '_' and '-'");

export const coreConfigShape = {
  dataDir: z.string().min(1).default("./data"),
  log: z
    .strictObject({
      level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
      pretty: z.boolean().nullable().default(null),
    })
    .prefault({}),
  http: z
    .strictObject({
      host: z.string().min(1).default("127.0.0.1"),
      port: port.default(8787),
      token: nullableString.default(null),
      maxTextLength: z.number().int().positive().default(32_000),
    })
    .prefault({}),
  store: z
    .strictObject({
      url: z
        .string()
        .regex(/^(sqlite|redis|rediss):\/\//, "must start with sqlite://, redis:// or rediss://")
        .nullable()
        .default(null),
      keyPrefix: z.string().min(1).default("switchboard:"),
    })
    .prefault({}),
  replica: z
    .strictObject({
      id: nullableString.default(null),
      leaseMs: z.number().int().min(1_000).default(6_000),
      renewMs: z.number().int().min(100).default(2_000),
      retryMs: z.number().int().min(100).default(1_000),
      heartbeatMs: z.number().int().min(100).default(2_000),
    })
    .refine((r) => r.renewMs * 2 <= r.leaseMs, { message: "renewMs must be at most half of leaseMs, so a renewal can fail once without losing the lease" })
    .prefault({}),
  llm: z
    .strictObject({
      provider: provider.default("openai-compatible"),
      baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
      apiKey: nullableString.default(null),
      model: nullableString.default(null),
      vision: z.boolean().default(false),
      reasoning: z.boolean().default(false),
      contextWindow,
      prices: modelPricesSchema.nullable().default(null),
      models: z.record(entryName, modelEntrySchema).default({}),
      primary: entryName.nullable().default(null),
      fallbacks: z.array(entryName).default([]),
      cooldownSeconds: z.number().positive().default(60),
      maxSteps: z.number().int().min(1).max(100).default(12),
      timeoutMs: duration.default(120_000),
      maxRetries: z.number().int().min(0).max(10).default(2),
      maxOutputTokens: z.number().int().positive().nullable().default(null),
      historyTokenBudget: z.number().int().min(1000).default(24_000),
    })
    .prefault({}),
  agent: z
    .strictObject({
      name: z.string().min(1).default("Switchboard"),
      persona: z.string().default("A helpful, concise assistant that chats with people in IM apps."),
      timezone: z.string().refine(isTimeZone, "expected an IANA timezone such as Europe/Berlin or Asia/Shanghai").default("UTC"),
      toolTimeoutMs: duration.default(60_000),
    })
    .prefault({}),
  sessions: z
    .strictObject({
      scope: z.enum(["chat", "user", "thread"]).default("chat"),
      maxConcurrent: z.number().int().min(1).max(1000).default(8),
      dedupTtlHours: z.number().positive().default(72),
      dedupLeaseMinutes: z.number().positive().default(1),
      shutdownGraceMs: duration.default(15_000),
      turnLeaseMs: duration.default(10_000),
    })
    .prefault({}),
  outbound: z
    .strictObject({
      attempts: z.number().int().min(1).max(10).default(3),
      baseDelayMs: duration.default(250),
      maxRetryAfterMs: duration.default(30_000),
      outboxRetryMinutes: z.number().positive().default(10),
      outboxBaseDelayMs: duration.default(2_000),
      outboxMaxDelayMs: duration.default(60_000),
    })
    .prefault({}),
  i18n: z
    .strictObject({
      /** The language of people who set none and whose platform tells none: "en" or "zh-Hans" (or a tag of either). */
      default: z.string().refine((tag) => localeOf(tag) !== null, `expected one of ${LOCALES.join(", ")} (or a tag of either, like zh-CN)`).default("en"),
    })
    .prefault({}),
};

export const coreConfigSchema = z.strictObject(coreConfigShape);
export type CoreConfig = z.output<typeof coreConfigSchema>;

/** Dotted paths of core settings whose values must never be shown; each `llm.models` entry's key too (isSecretPath). */
export const CORE_SECRET_PATHS = ["http.token", "llm.apiKey"];

/** Whether the setting at the dotted `path` is a secret: one of `secretPaths`, or a model entry's key. */
export function isSecretPath(path: string, secretPaths: readonly string[]): boolean {
  return secretPaths.includes(path) || /^llm\.models\.[^.]+\.apiKey$/.test(path);
}

/** How an environment variable overrides one setting. */
export interface EnvOverride {
  path: string;
  type: "string" | "number";
}

/** Environment variables that override the core settings. */
export const CORE_ENV_OVERRIDES: Record<string, EnvOverride> = {
  LLM_PROVIDER: { path: "llm.provider", type: "string" },
  LLM_BASE_URL: { path: "llm.baseUrl", type: "string" },
  LLM_API_KEY: { path: "llm.apiKey", type: "string" },
  LLM_MODEL: { path: "llm.model", type: "string" },
  SWITCHBOARD_DATA_DIR: { path: "dataDir", type: "string" },
  SWITCHBOARD_PORT: { path: "http.port", type: "number" },
  SWITCHBOARD_HOST: { path: "http.host", type: "string" },
  SWITCHBOARD_TOKEN: { path: "http.token", type: "string" },
  REDIS_URL: { path: "store.url", type: "string" },
  SWITCHBOARD_REDIS_PREFIX: { path: "store.keyPrefix", type: "string" },
  SWITCHBOARD_REPLICA_ID: { path: "replica.id", type: "string" },
};
