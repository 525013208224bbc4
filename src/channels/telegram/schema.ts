/**
 * The part of the Bot API's Update object the channel reads, as zod schemas: whatever arrives from the webhook or
 * getUpdates is checked here before anything trusts it. Unknown fields are dropped, missing optional ones stay
 * undefined, and a payload that does not fit is refused as a whole (the channel logs and acknowledges it).
 */
import { z } from "zod";

const id = z.number().int();
/** Seconds since 1970, up to the year 9999, so that it always makes a valid Date. */
const unixTime = z.number().int().min(0).max(253_402_300_799);

export const userSchema = z.object({
  id,
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
  /** The user's app language (IETF tag), when Telegram tells it. */
  language_code: z.string().max(35).optional(),
});

export const chatSchema = z.object({
  id,
  type: z.enum(["private", "group", "supergroup", "channel"]),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
});

const entitySchema = z.object({
  type: z.string(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  user: userSchema.optional(),
});

const file = {
  file_id: z.string().min(1),
  file_unique_id: z.string().min(1),
  file_size: z.number().int().nonnegative().optional(),
};
const media = { ...file, file_name: z.string().optional(), mime_type: z.string().optional() };
const duration = z.number().nonnegative();

const photoSizeSchema = z.object({ ...file, width: z.number().int(), height: z.number().int() });

/** The message fields that carry media. */
const mediaFields = {
  photo: z.array(photoSizeSchema).min(1).optional(),
  voice: z.object({ ...media, duration }).optional(),
  audio: z.object({ ...media, duration, title: z.string().optional(), performer: z.string().optional() }).optional(),
  video: z.object({ ...media, duration }).optional(),
  video_note: z.object({ ...file, duration }).optional(),
  animation: z.object({ ...media, duration }).optional(),
  document: z.object(media).optional(),
  sticker: z
    .object({ ...file, emoji: z.string().optional(), is_animated: z.boolean(), is_video: z.boolean() })
    .optional(),
};

const forwardOriginSchema = z.object({
  type: z.string(),
  sender_user: userSchema.optional(),
  sender_user_name: z.string().optional(),
  sender_chat: chatSchema.optional(),
  chat: chatSchema.optional(),
});

/** A message quoted by a reply; Telegram nests no deeper than this. */
const repliedMessageSchema = z.object({
  message_id: id,
  from: userSchema.optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  /** Present on the service message that opened a forum topic: every message in the topic "replies" to it. */
  forum_topic_created: z.unknown().optional(),
});

export const messageSchema = z.object({
  message_id: id,
  message_thread_id: id.optional(),
  is_topic_message: z.boolean().optional(),
  from: userSchema.optional(),
  sender_chat: chatSchema.optional(),
  chat: chatSchema,
  date: unixTime,
  edit_date: unixTime.optional(),
  text: z.string().optional(),
  entities: z.array(entitySchema).optional(),
  caption: z.string().optional(),
  caption_entities: z.array(entitySchema).optional(),
  reply_to_message: repliedMessageSchema.optional(),
  forward_origin: forwardOriginSchema.optional(),
  ...mediaFields,
});

/** Only the id is required of an update: it is what acknowledgment and storage need. */
export const updateSchema = z.looseObject({ update_id: z.number().int().nonnegative() });

export type TelegramUser = z.output<typeof userSchema>;
export type TelegramChat = z.output<typeof chatSchema>;
export type TelegramEntity = z.output<typeof entitySchema>;
export type TelegramMessage = z.output<typeof messageSchema>;
export type RawUpdate = z.output<typeof updateSchema>;
