/** The Feishu / Lark channel module. */
import type { ChannelModule } from "../module.js";
import { FeishuChannel, type FeishuChannelOptions } from "./channel.js";
import { checkFeishu, feishuFix } from "./check.js";

export { FeishuChannel, type FeishuChannelOptions };

export const feishuChannel: ChannelModule = {
  name: "feishu",
  create: ({ config, store, log, http }) => {
    const feishu = config.channels.feishu;
    const { appId, appSecret } = feishu;
    if (appId === null || appSecret === null) {
      throw new Error("The Feishu channel needs FEISHU_APP_ID and FEISHU_APP_SECRET");
    }
    return new FeishuChannel({
      config: { ...feishu, appId, appSecret },
      store,
      log,
      http,
      dedupTtlMs: config.sessions.dedupTtlHours * 3_600_000,
    });
  },
  check: checkFeishu,
  fix: feishuFix,
};
