/** The Slack channel module. The Slack SDKs are loaded only when the channel runs or is checked. */
import { defineChannel } from "../module.js";
import { slackConfigSchema } from "./config.js";

export type { SlackChannel, SlackChannelOptions } from "./channel.js";

const slackFix = "check SLACK_BOT_TOKEN (xoxb-...), SLACK_APP_TOKEN (xapp-..., Socket Mode), SLACK_SIGNING_SECRET (Events API) and SLACK_API_URL";

export const slackChannel = defineChannel({
  name: "slack",
  configSchema: slackConfigSchema,
  // The bot token turns the channel on; the schema then asks for what its mode needs (app token or signing secret).
  credentials: [{ field: "botToken", env: "SLACK_BOT_TOKEN" }],
  secretPaths: ["botToken", "appToken", "signingSecret"],
  envOverrides: {
    SLACK_BOT_TOKEN: { path: "botToken", type: "string" },
    SLACK_APP_TOKEN: { path: "appToken", type: "string" },
    SLACK_SIGNING_SECRET: { path: "signingSecret", type: "string" },
    SLACK_API_URL: { path: "apiUrl", type: "string" },
  },
  create: async ({ settings, store, log, http }) => {
    // The config loader refuses an enabled Slack channel without a bot token; this only narrows the type.
    if (settings.botToken === null) throw new Error("channels.slack.botToken is not set (SLACK_BOT_TOKEN)");
    const { SlackChannel } = await import("./channel.js");
    return new SlackChannel({ settings: { ...settings, botToken: settings.botToken }, store, log, http });
  },
  check: async (settings) => (await import("./check.js")).checkSlack(settings),
  fix: slackFix,
});
