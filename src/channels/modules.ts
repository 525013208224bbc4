/** Every channel the gateway knows. Adding a platform means adding its folder and one line here. */
import { dingtalkChannel } from "./dingtalk/index.js";
import { discordChannel } from "./discord/index.js";
import { feishuChannel } from "./feishu/index.js";
import { matrixChannel } from "./matrix/index.js";
import { qqChannel } from "./qq/index.js";
import { slackChannel } from "./slack/index.js";
import { telegramChannel } from "./telegram/index.js";
import { webChannel } from "./web/index.js";
import { wecomChannel } from "./wecom/index.js";
import { whatsappChannel } from "./whatsapp/index.js";

export const channelModules = [telegramChannel, feishuChannel, discordChannel, webChannel, slackChannel, whatsappChannel, matrixChannel, wecomChannel, dingtalkChannel, qqChannel] as const;
