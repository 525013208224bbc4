/** The QQ channel module: a bot of the official QQ bot platform, events by gateway or webhook. */
import { defineChannel } from "../module.js";
import { completeSettings, qqConfigSchema, qqFix } from "./config.js";

export type { QqChannel, QqChannelOptions } from "./channel.js";

export const qqChannel = defineChannel({
  name: "qq",
  configSchema: qqConfigSchema,
  credentials: [
    { field: "appId", env: "QQ_APP_ID" },
    { field: "appSecret", env: "QQ_APP_SECRET" },
  ],
  secretPaths: ["appSecret"],
  envOverrides: {
    QQ_APP_ID: { path: "appId", type: "string" },
    QQ_APP_SECRET: { path: "appSecret", type: "string" },
    QQ_API_URL: { path: "apiUrl", type: "string" },
    QQ_TOKEN_URL: { path: "tokenUrl", type: "string" },
  },
  create: async ({ settings, store, log, http, speechOf }) => {
    const { QqChannel } = await import("./channel.js");
    return new QqChannel({ settings: completeSettings(settings), store, log, http, ...(speechOf ? { speechOf } : {}) });
  },
  check: async (settings) => (await import("./check.js")).checkQq(settings),
  fix: qqFix,
});
