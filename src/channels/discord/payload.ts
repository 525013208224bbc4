/**
 * The parts of a gateway MESSAGE_CREATE payload Switchboard reads, validated at the edge. Fields that only add
 * context (the quoted message, embeds, stickers) fall back to empty when malformed instead of losing the message.
 */
import { z } from "zod";

const snowflake = z.string().regex(/^\d{1,20}$/, "expected a snowflake id");

export const userSchema = z.object({
  id: snowflake,
  username: z.string(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});

const memberSchema = z.object({
  nick: z.string().nullish(),
  roles: z.array(snowflake).optional(),
});

const mentionedUserSchema = userSchema.extend({ member: memberSchema.optional().catch(undefined) });

const attachmentSchema = z.object({
  id: snowflake,
  filename: z.string(),
  size: z.number().int().nonnegative(),
  url: z.url({ protocol: /^https?$/ }),
  content_type: z.string().optional(),
  duration_secs: z.number().nonnegative().optional(),
});

const referencedMessageSchema = z.object({
  id: snowflake,
  author: userSchema,
  content: z.string(),
  mentions: z.array(mentionedUserSchema).catch([]),
});

const presentList = z.array(z.unknown()).optional().catch(undefined);

export const messageCreateSchema = z.object({
  id: snowflake,
  channel_id: snowflake,
  guild_id: snowflake.optional(),
  type: z.number().int(),
  author: userSchema,
  member: memberSchema.optional(),
  content: z.string(),
  timestamp: z.string().optional(),
  flags: z.number().int().optional(),
  mentions: z.array(mentionedUserSchema),
  mention_roles: z.array(snowflake).default([]),
  attachments: z.array(attachmentSchema),
  message_reference: z.object({ message_id: snowflake.optional(), type: z.number().int().optional() }).optional().catch(undefined),
  referenced_message: referencedMessageSchema.nullish().catch(null),
  embeds: presentList,
  sticker_items: presentList,
  components: presentList,
  message_snapshots: presentList,
  poll: z.unknown().optional(),
});

export type MessageCreate = z.output<typeof messageCreateSchema>;
export type DiscordUser = z.output<typeof userSchema>;
export type MentionedUser = z.output<typeof mentionedUserSchema>;
export type DiscordAttachment = z.output<typeof attachmentSchema>;

/** Message types a person writes: DEFAULT and REPLY. Joins, pins, boosts and thread notices are not for the bot. */
export const USER_MESSAGE_TYPES: ReadonlySet<number> = new Set([0, 19]);

/** Message flag IS_VOICE_MESSAGE. */
export const VOICE_MESSAGE_FLAG = 1 << 13;

/** Channel types of threads (announcement, public, private); forum and media posts are public threads. */
export const THREAD_TYPES: ReadonlySet<number> = new Set([10, 11, 12]);

export function displayName(user: DiscordUser, nick?: string | null): string {
  return nick ?? user.global_name ?? user.username;
}
