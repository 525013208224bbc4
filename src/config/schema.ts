/**
 * The configuration schema: the single source of truth for every setting, its default and what is allowed.
 * config/default.yaml documents the same settings for users; a test keeps the two in step.
 */
import { z } from "zod";
import { accessConfigSchema } from "../access/config.js";
import { discordConfigSchema } from "../channels/discord/config.js";
import { feishuConfigSchema } from "../channels/feishu/config.js";
import { telegramConfigSchema } from "../channels/telegram/config.js";
import { mediaConfigSchema } from "../im/config.js";
import { mcpConfigSchema } from "../mcp/config.js";
import { schedulerConfigSchema } from "../scheduler/config.js";
import { skillsConfigSchema } from "../skills/config.js";

function isTimeZone(zone: string): boolean {
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

export const configSchema = z.strictObject({
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
    })
    .prefault({}),
  llm: z
    .strictObject({
      provider: z.enum(["openai-compatible", "anthropic"]).default("openai-compatible"),
      baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
      apiKey: nullableString.default(null),
      model: nullableString.default(null),
      vision: z.boolean().default(false),
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
      dedupLeaseMinutes: z.number().positive().default(15),
      shutdownGraceMs: duration.default(15_000),
    })
    .prefault({}),
  skills: skillsConfigSchema,
  mcp: mcpConfigSchema,
  scheduler: schedulerConfigSchema,
  media: mediaConfigSchema,
  access: accessConfigSchema,
  channels: z
    .strictObject({
      web: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
      telegram: telegramConfigSchema,
      feishu: feishuConfigSchema,
      discord: discordConfigSchema,
    })
    .prefault({}),
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

/** Dotted paths of settings whose values must never be shown. */
export const SECRET_PATHS = [
  "http.token",
  "llm.apiKey",
  "media.stt.apiKey",
  "channels.telegram.token",
  "channels.telegram.webhook.secretToken",
  "channels.feishu.appSecret",
  "channels.feishu.webhook.verificationToken",
  "channels.feishu.webhook.encryptKey",
  "channels.discord.token",
] as const;

/** Environment variables that override the files, and the setting each one sets. */
export const ENV_OVERRIDES: Record<string, { path: string; type: "string" | "number" }> = {
  TELEGRAM_BOT_TOKEN: { path: "channels.telegram.token", type: "string" },
  TELEGRAM_API_ROOT: { path: "channels.telegram.apiRoot", type: "string" },
  FEISHU_APP_ID: { path: "channels.feishu.appId", type: "string" },
  FEISHU_APP_SECRET: { path: "channels.feishu.appSecret", type: "string" },
  FEISHU_DOMAIN: { path: "channels.feishu.domain", type: "string" },
  FEISHU_MODE: { path: "channels.feishu.mode", type: "string" },
  FEISHU_VERIFICATION_TOKEN: { path: "channels.feishu.webhook.verificationToken", type: "string" },
  FEISHU_ENCRYPT_KEY: { path: "channels.feishu.webhook.encryptKey", type: "string" },
  DISCORD_BOT_TOKEN: { path: "channels.discord.token", type: "string" },
  DISCORD_API_URL: { path: "channels.discord.apiUrl", type: "string" },
  LLM_PROVIDER: { path: "llm.provider", type: "string" },
  LLM_BASE_URL: { path: "llm.baseUrl", type: "string" },
  LLM_API_KEY: { path: "llm.apiKey", type: "string" },
  LLM_MODEL: { path: "llm.model", type: "string" },
  STT_BASE_URL: { path: "media.stt.baseUrl", type: "string" },
  STT_API_KEY: { path: "media.stt.apiKey", type: "string" },
  STT_MODEL: { path: "media.stt.model", type: "string" },
  SWITCHBOARD_DATA_DIR: { path: "dataDir", type: "string" },
  SWITCHBOARD_PORT: { path: "http.port", type: "number" },
  SWITCHBOARD_HOST: { path: "http.host", type: "string" },
  SWITCHBOARD_TOKEN: { path: "http.token", type: "string" },
  REDIS_URL: { path: "store.url", type: "string" },
};
