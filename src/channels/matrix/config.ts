/** The `channels.matrix` settings: a bot account on any homeserver, through the Client-Server API. */
import { z } from "zod";
import { streamingSetting } from "../live-reply.js";

export const matrixConfigSchema = z
  .strictObject({
    /** null: enabled when the homeserver URL and an access token are set. */
    enabled: z.boolean().nullable().default(null),
    /** The homeserver's client API base, e.g. https://matrix.example.org (not the server name). */
    homeserverUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    /** The bot account's access token. */
    accessToken: z.string().min(1).nullable().default(null),
    /** The bot's user id (@bot:example.org); null: asked of the homeserver (whoami) at start. */
    userId: z.string().regex(/^@[^:\s]+:\S+$/, "a Matrix user id such as @bot:example.org").nullable().default(null),
    /**
     * Invitations to rooms: accepted from a user the access config lets in by name (owner, allowFrom, paired),
     * from anyone, or never (join rooms yourself with the bot account).
     */
    autoJoin: z.enum(["invited-by-allowed", "always", "never"]).default("invited-by-allowed"),
    /** How long one /sync waits for news, in ms. */
    syncTimeoutMs: z.number().int().min(1_000).max(120_000).default(30_000),
    /** Replies as they are written: preview (or draft) = a message edited in place (m.replace); off = whole. */
    streaming: streamingSetting("preview"),
    /** The reaction put on a message while it is answered (m.reaction), taken back after; null: none. */
    ackReaction: z.string().min(1).nullable().default("👀"),
    /** Largest file the bot downloads from the content repository. */
    maxDownloadBytes: z.number().int().positive().default(50 * 1024 * 1024),
  })
  .refine((c) => c.enabled !== true || (c.homeserverUrl !== null && c.accessToken !== null), {
    message: "enabled is true but MATRIX_HOMESERVER_URL and MATRIX_ACCESS_TOKEN are not both set",
    path: ["accessToken"],
  })
  .prefault({});

export type MatrixConfig = z.output<typeof matrixConfigSchema>;
export type MatrixSettings = MatrixConfig & { homeserverUrl: string; accessToken: string };

export const matrixFix = "check MATRIX_HOMESERVER_URL (the client API base, see /.well-known/matrix/client) and MATRIX_ACCESS_TOKEN (the bot account's)";
