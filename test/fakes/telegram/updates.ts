/**
 * Builders of the updates Telegram sends, with the entities its clients compute (@mentions, a leading /command),
 * so tests write `text(groupChat, "@bot hi")` and get what a real client would produce.
 */

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface TgChat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  first_name?: string;
  username?: string;
  is_forum?: boolean;
}

export const alice: TgUser = { id: 1001, is_bot: false, first_name: "Alice", last_name: "Liddell", username: "alice" };
export const bob: TgUser = { id: 1002, is_bot: false, first_name: "Bob", username: "bob" };

export const directChat = (user: TgUser = alice): TgChat => ({ id: user.id, type: "private", first_name: user.first_name, username: user.username });
export const groupChat: TgChat = { id: -1001234567890, type: "supergroup", title: "Team" };
export const forumChat: TgChat = { id: -1009876543210, type: "supergroup", title: "Forum", is_forum: true };

let nextMessageId = 1;

/** A message update; `fields` go into the message as they are. */
export function messageUpdate(chat: TgChat, fields: Record<string, unknown>, from: TgUser = alice): Record<string, unknown> {
  return { message: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat, from, ...fields } };
}

export function text(chat: TgChat, body: string, opts: { from?: TgUser; fields?: Record<string, unknown> } = {}): Record<string, unknown> {
  const entities = entitiesOf(body);
  return messageUpdate(chat, { text: body, ...(entities.length > 0 ? { entities } : {}), ...opts.fields }, opts.from);
}

/** A message in a forum topic: Telegram marks it and makes it "reply" to the topic's opening service message. */
export function topicText(chat: TgChat, threadId: number, body: string, from: TgUser = alice): Record<string, unknown> {
  const topicRoot = { message_id: threadId, date: 1, chat, from, forum_topic_created: { name: "Topic", icon_color: 0 } };
  return text(chat, body, { from, fields: { message_thread_id: threadId, is_topic_message: true, reply_to_message: topicRoot } });
}

/** The message object inside an update built here. */
export function messageOf(update: Record<string, unknown>): { message_id: number } & Record<string, unknown> {
  return (update.message ?? update.edited_message) as { message_id: number } & Record<string, unknown>;
}

/** Entities a Telegram client computes: @mentions anywhere and a /command at the start; offsets in UTF-16 units. */
export function entitiesOf(body: string): Array<{ type: string; offset: number; length: number }> {
  const entities: Array<{ type: string; offset: number; length: number }> = [];
  const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(body);
  if (command) entities.push({ type: "bot_command", offset: 0, length: command[0].length });
  for (const mention of body.matchAll(/(?<![\w/])@[A-Za-z0-9_]{5,32}/g)) {
    if (command && mention.index < command[0].length) continue;
    entities.push({ type: "mention", offset: mention.index, length: mention[0].length });
  }
  return entities;
}
