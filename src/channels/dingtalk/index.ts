/** The DingTalk (钉钉) channel module: an app's robot, messages over the Stream connection. */
import { defineChannel } from "../module.js";
import { completeSettings, dingtalkConfigSchema, dingtalkFix } from "./config.js";

export type { DingtalkChannel, DingtalkChannelOptions } from "./channel.js";

export const dingtalkChannel = defineChannel({
  name: "dingtalk",
  configSchema: dingtalkConfigSchema,
  credentials: [
    { field: "clientId", env: "DINGTALK_CLIENT_ID" },
    { field: "clientSecret", env: "DINGTALK_CLIENT_SECRET" },
  ],
  secretPaths: ["clientSecret"],
  envOverrides: {
    DINGTALK_CLIENT_ID: { path: "clientId", type: "string" },
    DINGTALK_CLIENT_SECRET: { path: "clientSecret", type: "string" },
    DINGTALK_ROBOT_CODE: { path: "robotCode", type: "string" },
    DINGTALK_API_URL: { path: "apiUrl", type: "string" },
    DINGTALK_OAPI_URL: { path: "oapiUrl", type: "string" },
  },
  create: async ({ settings, store, log }) => {
    const { DingtalkChannel } = await import("./channel.js");
    return new DingtalkChannel({ settings: completeSettings(settings), store, log });
  },
  check: async (settings) => (await import("./check.js")).checkDingtalk(settings),
  fix: dingtalkFix,
});
