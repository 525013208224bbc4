/**
 * What Slack sends, validated at the edge: Events API callbacks (the same body over Socket Mode and HTTP), block
 * action presses (interactivity) and slash commands. Only the fields the channel reads; Slack adds fields freely.
 */
import { z } from "zod";

const fileSchema = z.object({
  id: z.string(),
  name: z.string().nullish(),
  mimetype: z.string().nullish(),
  filetype: z.string().nullish(),
  subtype: z.string().nullish(),
  size: z.number().nullish(),
  url_private: z.string().nullish(),
  url_private_download: z.string().nullish(),
});
export type SlackFile = z.output<typeof fileSchema>;

/** A `message` or `app_mention` event. */
export const messageEventSchema = z.object({
  type: z.enum(["message", "app_mention"]),
  subtype: z.string().optional(),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(""),
  ts: z.string().regex(/^\d+\.\d+$/),
  thread_ts: z.string().optional(),
  parent_user_id: z.string().optional(),
  files: z.array(fileSchema).default(() => []),
});
export type MessageEvent = z.output<typeof messageEventSchema>;

export const eventCallbackSchema = z.object({
  type: z.literal("event_callback"),
  team_id: z.string(),
  event_id: z.string(),
  event: z.object({ type: z.string() }).loose(),
});
export type EventCallback = z.output<typeof eventCallbackSchema>;

/** A press of a Block Kit button (`block_actions`). */
export const blockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string(), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  team: z.object({ id: z.string() }).nullish(),
  channel: z.object({ id: z.string() }),
  container: z.object({ message_ts: z.string().optional(), thread_ts: z.string().optional() }).loose().optional(),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional(), text: z.string().optional(), blocks: z.array(z.object({ type: z.string() }).loose()).optional() }),
  actions: z.array(z.object({ action_id: z.string(), action_ts: z.string().optional() })).min(1),
  trigger_id: z.string().optional(),
});
export type BlockActions = z.output<typeof blockActionsSchema>;

/** A slash command, as Slack posts it (form fields). */
export const slashCommandSchema = z.object({
  command: z.string().regex(/^\/\S+$/),
  text: z.string().default(""),
  user_id: z.string(),
  user_name: z.string().optional(),
  channel_id: z.string(),
  team_id: z.string(),
  trigger_id: z.string(),
});
export type SlashCommand = z.output<typeof slashCommandSchema>;

/** Message subtypes a person writes; the rest (joins, edits, deletions, bots) are not messages to answer. */
export const PERSON_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast"]);

/** A conversation's kind from its id: D is a direct message; C and G channels, private channels and group DMs. */
export function isDirectChannel(channel: string, channelType?: string): boolean {
  return channelType !== undefined ? channelType === "im" : channel.startsWith("D");
}

/** A message's ts is its time: seconds since the epoch, with microseconds. */
export function dateOf(ts: string): Date {
  const date = new Date(Number(ts) * 1000);
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

/** The first problems zod found, for a log line. */
export function problemsOf(error: z.ZodError): string[] {
  return error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`);
}
