/** The Feishu channel module. */
import type { ChannelModule } from "../module.js";
import { checkFeishu, feishuFix } from "./check.js";

export const feishuChannel: ChannelModule = {
  name: "feishu",
  check: checkFeishu,
  fix: feishuFix,
};
