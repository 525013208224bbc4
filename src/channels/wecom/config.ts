/** The `channels.wecom` settings: a WeCom (企业微信) self-built application. */
import { z } from "zod";

const secret = z.string().min(1).nullable().default(null);

export const wecomConfigSchema = z
  .strictObject({
    /** null: enabled when the corp id, secret, agent id, token and AES key are all set. */
    enabled: z.boolean().nullable().default(null),
    /** 企业ID (My Company > Company Information). */
    corpId: secret,
    /** The application's Secret. */
    corpSecret: secret,
    /** The application's AgentId (digits; a number in YAML is read as its digits). */
    agentId: z.union([z.string().regex(/^\d+$/, "the AgentId is a number"), z.number().int().positive().transform(String)]).nullable().default(null),
    /** The callback Token ("API接收消息" settings). */
    token: secret,
    /** The callback EncodingAESKey: 43 characters. */
    aesKey: z.string().regex(/^[A-Za-z0-9]{43}$/, "the EncodingAESKey is 43 letters and digits").nullable().default(null),
    apiUrl: z.url({ protocol: /^https?$/ }).default("https://qyapi.weixin.qq.com"),
    /** Path on the gateway's HTTP server that WeCom calls back. */
    callbackPath: z.string().regex(/^\/[\w\-./]*$/, "a path such as /wecom/callback").default("/wecom/callback"),
    /** How replies are sent: WeCom's Markdown (shown in the WeCom client) or plain text. */
    replyFormat: z.enum(["markdown", "text"]).default("markdown"),
  })
  .prefault({});

export type WecomConfig = z.output<typeof wecomConfigSchema>;

/** The settings with every credential present, as the running channel needs them. */
export type WecomSettings = Omit<WecomConfig, "agentId"> & { corpId: string; corpSecret: string; agentId: number; token: string; aesKey: string };

export function completeSettings(config: WecomConfig): WecomSettings {
  const { corpId, corpSecret, agentId, token, aesKey } = config;
  if (corpId === null || corpSecret === null || agentId === null || token === null || aesKey === null) {
    throw new Error("The WeCom channel needs WECOM_CORP_ID, WECOM_CORP_SECRET, WECOM_AGENT_ID, WECOM_TOKEN and WECOM_AES_KEY");
  }
  return { ...config, corpId, corpSecret, agentId: Number(agentId), token, aesKey };
}

export const wecomFix =
  "check WECOM_CORP_ID (My Company > Company Information), the app's WECOM_CORP_SECRET and WECOM_AGENT_ID " +
  "(App Management > your app), the callback WECOM_TOKEN / WECOM_AES_KEY, and the app's trusted IP list";
