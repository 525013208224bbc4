/** The `channels.telegram` settings. */
import { z } from "zod";
import { DEFAULT_THROTTLE, streamingSetting } from "../live-reply.js";

/** Telegram accepts 1-256 characters of A-Z, a-z, 0-9, _ and - as a webhook secret token. */
export const WEBHOOK_SECRET_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

export const telegramConfigSchema = z
  .strictObject({
    /** null: enabled when a token is set. */
    enabled: z.boolean().nullable().default(null),
    token: z.string().min(1).nullable().default(null),
    apiRoot: z.url({ protocol: /^https?$/ }).nullable().default(null),
    mode: z.enum(["polling", "webhook"]).default("polling"),
    webhook: z
      .strictObject({
        /** The public HTTPS address Telegram posts updates to; the gateway serves its path. */
        url: z.url({ protocol: /^https?$/ }).nullable().default(null),
        /** null: derived from the bot token, so every replica agrees on it without configuration. */
        secretToken: z.string().regex(WEBHOOK_SECRET_PATTERN, "1-256 characters of A-Z a-z 0-9 _ -").nullable().default(null),
      })
      .prefault({}),
    /** How long one getUpdates call waits for updates, in seconds. */
    pollTimeoutSec: z.number().int().min(1).max(50).default(30),
    /** Treat an edited message as a new message (by default edits are ignored). */
    handleEdits: z.boolean().default(false),
    /** Largest file the bot downloads: 20 MB on api.telegram.org; a local Bot API server allows up to 2000 MB. */
    maxDownloadBytes: z.number().int().positive().default(20 * 1024 * 1024),
    /** Replies as they are written: drafts in private chats, an edited preview message elsewhere. */
    streaming: streamingSetting("draft"),
    /** The pace of streamed replies. */
    streamingPace: z
      .strictObject({
        /** Least time between two preview edits or drafts, in ms. */
        intervalMs: z.number().int().min(300).max(60_000).default(DEFAULT_THROTTLE.intervalMs),
        /** Wait after the first words before showing anything (a quick answer goes out whole), in ms. */
        firstDelayMs: z.number().int().min(0).max(60_000).default(DEFAULT_THROTTLE.firstDelayMs),
        /** New characters needed before the preview is shown again. */
        minChars: z.number().int().min(1).max(4096).default(DEFAULT_THROTTLE.minChars),
        /** A draft lasts about 30 s: it is sent again after this long without a change (a long tool run), in ms. */
        draftRefreshMs: z.number().int().min(1_000).max(28_000).default(20_000),
      })
      .prefault({}),
    /** The reaction put on a message while it is answered (one of Telegram's reaction emoji); null: none. */
    ackReaction: z.string().min(1).nullable().default("👀"),
  })
  .refine((c) => c.enabled !== true || c.token !== null, {
    message: "enabled is true but no token is set (TELEGRAM_BOT_TOKEN, from @BotFather)",
    path: ["token"],
  })
  .refine((c) => c.mode !== "webhook" || c.webhook.url !== null, {
    message: "mode webhook needs webhook.url (the public address Telegram posts updates to)",
    path: ["webhook", "url"],
  })
  .prefault({});

export type TelegramConfig = z.output<typeof telegramConfigSchema>;
