/** The WeCom (企业微信) channel module: a self-built application, messages by encrypted callback. */
import { defineChannel } from "../module.js";
import { completeSettings, wecomConfigSchema, wecomFix } from "./config.js";

export type { WecomChannel, WecomChannelOptions } from "./channel.js";

export const wecomChannel = defineChannel({
  name: "wecom",
  configSchema: wecomConfigSchema,
  credentials: [
    { field: "corpId", env: "WECOM_CORP_ID" },
    { field: "corpSecret", env: "WECOM_CORP_SECRET" },
    { field: "agentId", env: "WECOM_AGENT_ID" },
    { field: "token", env: "WECOM_TOKEN" },
    { field: "aesKey", env: "WECOM_AES_KEY" },
  ],
  secretPaths: ["corpSecret", "token", "aesKey"],
  envOverrides: {
    WECOM_CORP_ID: { path: "corpId", type: "string" },
    WECOM_CORP_SECRET: { path: "corpSecret", type: "string" },
    WECOM_AGENT_ID: { path: "agentId", type: "string" },
    WECOM_TOKEN: { path: "token", type: "string" },
    WECOM_AES_KEY: { path: "aesKey", type: "string" },
    WECOM_API_URL: { path: "apiUrl", type: "string" },
  },
  create: async ({ settings, store, log, http }) => {
    const { WecomChannel } = await import("./channel.js");
    return new WecomChannel({ settings: completeSettings(settings), store, log, http });
  },
  check: async (settings) => (await import("./check.js")).checkWecom(settings),
  fix: wecomFix,
});
