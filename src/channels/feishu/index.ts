/** The Feishu / Lark channel module. The Lark SDK (about 65 MB) is loaded only when the channel runs or is checked. */
import { defineChannel } from "../module.js";
import { feishuConfigSchema, feishuFix } from "./config.js";

export type { FeishuChannel, FeishuChannelOptions } from "./channel.js";

export const feishuChannel = defineChannel({
  name: "feishu",
  configSchema: feishuConfigSchema,
  credentials: [
    { field: "appId", env: "FEISHU_APP_ID" },
    { field: "appSecret", env: "FEISHU_APP_SECRET" },
  ],
  secretPaths: ["appSecret", "webhook.verificationToken", "webhook.encryptKey"],
  envOverrides: {
    FEISHU_APP_ID: { path: "appId", type: "string" },
    FEISHU_APP_SECRET: { path: "appSecret", type: "string" },
    FEISHU_DOMAIN: { path: "domain", type: "string" },
    FEISHU_MODE: { path: "mode", type: "string" },
    FEISHU_VERIFICATION_TOKEN: { path: "webhook.verificationToken", type: "string" },
    FEISHU_ENCRYPT_KEY: { path: "webhook.encryptKey", type: "string" },
  },
  create: async ({ settings, core, store, log, http, clock }) => {
    const { appId, appSecret } = settings;
    if (appId === null || appSecret === null) {
      throw new Error("The Feishu channel needs FEISHU_APP_ID and FEISHU_APP_SECRET");
    }
    const { FeishuChannel } = await import("./channel.js");
    return new FeishuChannel({
      config: { ...settings, appId, appSecret },
      store,
      log,
      http,
      dedupTtlMs: core.sessions.dedupTtlHours * 3_600_000,
      ...(clock ? { clock } : {}),
    });
  },
  check: async (settings) => (await import("./check.js")).checkFeishu(settings),
  fix: feishuFix,
});
