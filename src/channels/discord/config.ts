/** The `channels.discord` settings. */
import { z } from "zod";
import { streamingSetting } from "../live-reply.js";

export const DEFAULT_API_URL = "https://discord.com/api";

export const discordConfigSchema = z
  .strictObject({
    /** null: enabled when a token is set. */
    enabled: z.boolean().nullable().default(null),
    token: z.string().min(1).nullable().default(null),
    /** REST base; the gateway URL then comes from GET /gateway/bot. null = https://discord.com/api. */
    apiUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    /** Hand other bots' messages to the router (never the bot's own), with loop protection. */
    allowBots: z.boolean().default(false),
    /** With allowBots: most bot messages answered in a row in one channel before a person speaks again. */
    maxBotTurnsInARow: z.number().int().min(1).max(100).default(3),
    /** Link previews (embeds) under the bot's messages. */
    suppressEmbeds: z.boolean().default(true),
    /** Replies as they are written: a preview message edited in place ("draft" is the same here), or "off". */
    streaming: streamingSetting("preview"),
    /** The reaction put on a message while it is answered (a Unicode emoji); null: none. */
    ackReaction: z.string().min(1).nullable().default("👀"),
    /** Largest file the bot uploads, in MiB (10 without server boosts). */
    maxUploadMB: z.number().positive().max(500).default(10),
    /** Largest attachment the bot downloads, in MiB. */
    maxDownloadMB: z.number().positive().max(500).default(50),
    /** Slash commands for the command menu: one set for every server ("global"), per server the bot is in, or "off". */
    slashCommands: z.enum(["global", "guilds", "off"]).default("global"),
    /** Reconnect when the gateway has been silent this long (no events, no heartbeat ACKs), in ms. */
    watchdogSilenceMs: z.number().int().min(1000).default(120_000),
  })
  .prefault({});

export type DiscordConfig = z.output<typeof discordConfigSchema>;
