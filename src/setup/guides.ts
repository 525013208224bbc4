/** Where each platform's credentials are found, in its developer console's own menu names; shown before they are asked for. */
export const CREDENTIAL_GUIDES: Readonly<Record<string, string>> = {
  telegram: "In Telegram, talk to @BotFather: /newbot, pick a name and a username ending in 'bot', and copy the token it sends.",
  discord:
    "Developer Portal (discord.com/developers/applications) → New Application → Bot → Reset Token, copy it; still under Bot → Privileged Gateway Intents, turn on MESSAGE CONTENT INTENT; OAuth2 → URL Generator, scope 'bot', to invite it.",
  feishu:
    "Developer console (open.feishu.cn/app) → 创建企业自建应用; 凭证与基础信息 (Credentials & Basic Info): App ID and App Secret; 添加应用能力 → 机器人; 事件与回调 → 使用长连接接收事件; 版本管理与发布: publish.",
  slack: "api.slack.com/apps → Create New App → From an app manifest; Basic Information → App-Level Tokens (connections:write); Install App → Bot User OAuth Token (xoxb-…).",
  wecom: "Admin console (work.weixin.qq.com) → 我的企业 → 企业ID; 应用管理 → 应用 → 自建 → 创建应用: AgentId and Secret; 接收消息 → 设置API接收: Token and EncodingAESKey.",
  dingtalk: "Developer console (open-dev.dingtalk.com) → 应用开发 → 企业内部应用 → 创建应用; 凭证与基础信息: Client ID and Client Secret; 添加应用能力 → 机器人, 消息接收模式 Stream.",
  qq: "q.qq.com → 创建机器人; 开发 → 开发设置: AppID and AppSecret; 沙箱配置: your test group and account.",
  whatsapp: "Meta for Developers → your Business app → WhatsApp → API Setup: Phone number ID; Business Settings → System users: a permanent token; App settings → Basic: App secret; choose any verify token.",
  matrix: "Create the bot's account; log in to Element as the bot: Settings → Help & About → Advanced → Access Token.",
};
