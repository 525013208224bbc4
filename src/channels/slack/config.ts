/** The `channels.slack` settings. */
import { z } from "zod";
import { streamingSetting } from "../live-reply.js";

export const DEFAULT_API_URL = "https://slack.com/api/";
/** Where the Events API, interactivity and slash commands post in `events` mode. */
export const EVENTS_PATH = "/slack/events";

export const slackConfigSchema = z
  .strictObject({
    /** null: enabled when the credentials of the mode are set. */
    enabled: z.boolean().nullable().default(null),
    /** The bot token (xoxb-...), for every Web API call. */
    botToken: z.string().min(1).nullable().default(null),
    /** The app-level token (xapp-..., scope connections:write), for Socket Mode; ignored in `events` mode. */
    appToken: z.string().min(1).nullable().default(null),
    /** The signing secret, checking the Events API's requests in `events` mode. */
    signingSecret: z.string().min(1).nullable().default(null),
    /** The Web API base; Socket Mode's WebSocket address comes from apps.connections.open on it. */
    apiUrl: z.url({ protocol: /^https?$/ }).default(DEFAULT_API_URL),
    /** socket: Socket Mode (no public address needed); events: Slack posts to /slack/events. */
    mode: z.enum(["socket", "events"]).default("socket"),
    /** Replies as they are written: a message edited in place with chat.update ("draft" is the same here), or "off". */
    streaming: streamingSetting("preview"),
    /** The reaction put on a message while it is answered (an emoji name without colons); null: none. */
    ackReaction: z.string().regex(/^[a-z0-9_+'-]+$/, "an emoji name without colons, e.g. eyes").nullable().default("eyes"),
    /** The slash command that carries the gateway's commands: `/switchboard new` runs /new. */
    slashCommand: z.string().regex(/^\/[a-z0-9_-]{1,31}$/, "a slash and a lower-case name, e.g. /switchboard").default("/switchboard"),
    /** Largest file the bot uploads, in MiB. */
    maxUploadMB: z.number().positive().max(1024).default(100),
    /** Largest file the bot downloads, in MiB. */
    maxDownloadMB: z.number().positive().max(1024).default(50),
  })
  .superRefine((c, ctx) => {
    // Explicitly on, or on because the bot token is set: then the mode's own credential must be there too.
    if (c.enabled === false || (c.enabled === null && c.botToken === null)) return;
    if (c.botToken === null) ctx.addIssue({ code: "custom", path: ["botToken"], message: "enabled is true but no bot token is set (SLACK_BOT_TOKEN, xoxb-...)" });
    if (c.mode === "socket" && c.appToken === null) {
      ctx.addIssue({ code: "custom", path: ["appToken"], message: "Socket Mode needs an app-level token (SLACK_APP_TOKEN, xapp-...), or set mode: events" });
    }
    if (c.mode === "events" && c.signingSecret === null) {
      ctx.addIssue({ code: "custom", path: ["signingSecret"], message: "mode events needs the signing secret (SLACK_SIGNING_SECRET)" });
    }
  })
  .prefault({});

export type SlackConfig = z.output<typeof slackConfigSchema>;
/** The settings with the credentials of the configured mode present. */
export type SlackSettings = SlackConfig & { botToken: string };
