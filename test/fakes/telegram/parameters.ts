/**
 * The parameters the Bot API defines for each method the fake serves (Bot API 9.x). Telegram itself ignores a
 * parameter it does not know, so a misspelled option (`parse_mod`, `reply_to`) is silently lost there; the fake
 * refuses it, so a test sees the mistake. A method not listed here is answered 404 as before.
 */
const SEND = [
  "business_connection_id",
  "chat_id",
  "message_thread_id",
  "direct_messages_topic_id",
  "disable_notification",
  "protect_content",
  "allow_paid_broadcast",
  "message_effect_id",
  "suggested_post_parameters",
  "reply_parameters",
  "reply_markup",
];
const CAPTION = ["caption", "parse_mode", "caption_entities"];

const PARAMETERS: Record<string, readonly string[]> = {
  getMe: [],
  getWebhookInfo: [],
  getUpdates: ["offset", "limit", "timeout", "allowed_updates"],
  setWebhook: ["url", "certificate", "ip_address", "max_connections", "allowed_updates", "drop_pending_updates", "secret_token"],
  deleteWebhook: ["drop_pending_updates"],
  sendMessage: [...SEND, "text", "parse_mode", "entities", "link_preview_options"],
  sendPhoto: [...SEND, ...CAPTION, "photo", "show_caption_above_media", "has_spoiler"],
  sendDocument: [...SEND, ...CAPTION, "document", "thumbnail", "disable_content_type_detection"],
  sendAudio: [...SEND, ...CAPTION, "audio", "duration", "performer", "title", "thumbnail"],
  sendVoice: [...SEND, ...CAPTION, "voice", "duration"],
  sendVideo: [
    ...SEND,
    ...CAPTION,
    "video",
    "duration",
    "width",
    "height",
    "thumbnail",
    "cover",
    "start_timestamp",
    "show_caption_above_media",
    "has_spoiler",
    "supports_streaming",
  ],
  editMessageText: ["business_connection_id", "chat_id", "message_id", "inline_message_id", "text", "parse_mode", "entities", "link_preview_options", "reply_markup"],
  editMessageReplyMarkup: ["business_connection_id", "chat_id", "message_id", "inline_message_id", "reply_markup"],
  deleteMessage: ["chat_id", "message_id"],
  setMessageReaction: ["chat_id", "message_id", "reaction", "is_big"],
  answerCallbackQuery: ["callback_query_id", "text", "show_alert", "url", "cache_time"],
  setMyCommands: ["commands", "scope", "language_code"],
  sendChatAction: ["business_connection_id", "chat_id", "message_thread_id", "action"],
  sendMessageDraft: ["chat_id", "message_thread_id", "draft_id", "text", "parse_mode", "entities"],
  getFile: ["file_id"],
};

/** The first parameter `method` does not define, or undefined; undefined too for a method not listed. */
export function unknownParameter(method: string, params: Record<string, unknown>): string | undefined {
  const known = PARAMETERS[method];
  return known === undefined ? undefined : Object.keys(params).find((name) => !known.includes(name));
}
