/** The `channels.qq` settings: a bot of the official QQ bot platform (QQ开放平台). */
import { z } from "zod";

export const QQ_API = "https://api.sgroup.qq.com";
export const QQ_SANDBOX_API = "https://sandbox.api.sgroup.qq.com";

export const qqConfigSchema = z
  .strictObject({
    /** null: enabled when appId and appSecret are set. */
    enabled: z.boolean().nullable().default(null),
    appId: z.string().min(1).nullable().default(null),
    /** The bot's AppSecret (its client secret). */
    appSecret: z.string().min(1).nullable().default(null),
    /** The OpenAPI; null: the production API, or the sandbox API with `sandbox: true`. */
    apiUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    tokenUrl: z.url({ protocol: /^https?$/ }).default("https://bots.qq.com/app/getAppAccessToken"),
    /** Talk to the sandbox API (the bot's sandbox group and members only). */
    sandbox: z.boolean().default(false),
    /** websocket: the gateway connection; webhook: QQ posts events, signed with ed25519, to `webhookPath`. */
    mode: z.enum(["websocket", "webhook"]).default("websocket"),
    webhookPath: z.string().regex(/^\/[\w\-./]*$/, "a path such as /qq/callback").default("/qq/callback"),
    /** Send replies as QQ Markdown (needs the Markdown permission; plain text when refused). */
    markdown: z.boolean().default(false),
  })
  .prefault({});

export type QqConfig = z.output<typeof qqConfigSchema>;
export type QqSettings = Omit<QqConfig, "apiUrl"> & { appId: string; appSecret: string; apiUrl: string };

export function completeSettings(config: QqConfig): QqSettings {
  const { appId, appSecret } = config;
  if (appId === null || appSecret === null) throw new Error("The QQ channel needs QQ_APP_ID and QQ_APP_SECRET");
  return { ...config, appId, appSecret, apiUrl: config.apiUrl ?? (config.sandbox ? QQ_SANDBOX_API : QQ_API) };
}

export const qqFix =
  "check QQ_APP_ID / QQ_APP_SECRET (q.qq.com > your bot > 开发 > 开发设置), the bot's IP whitelist, and with " +
  "channels.qq.sandbox whether the bot is only in its sandbox";
