/** Every channel the gateway knows, by name. Adding a platform means adding its folder and one line here. */
import { discordChannel } from "./discord/index.js";
import { feishuChannel } from "./feishu/index.js";
import type { ChannelModule } from "./module.js";
import { telegramChannel } from "./telegram/index.js";
import type { ChannelName } from "../core/types.js";
import { webChannel } from "./web/index.js";

export const channelModules: Record<ChannelName, ChannelModule> = {
  web: webChannel,
  telegram: telegramChannel,
  feishu: feishuChannel,
  discord: discordChannel,
};
