/**
 * Inline keyboard buttons: rows of buttons whose callback_data is the gateway's action id (at most 32 characters,
 * within Telegram's 64 bytes), and the callback_query updates a press sends, turned into ButtonPress. A press is
 * answered with answerCallbackQuery (a toast for a notice); a done action's buttons are taken off the message.
 */
import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { z } from "zod";
import type { ButtonPress, ButtonRow, PressAnswer } from "../../core/types.js";
import { isNotModifiedError } from "./api.js";
import { chatSchema, userSchema, type RawUpdate } from "./schema.js";

const callbackQuerySchema = z.object({
  id: z.string().min(1),
  from: userSchema,
  /** Absent for a button under an inline-mode message; "inaccessible" messages still carry chat and id. */
  message: z.object({ message_id: z.number().int(), chat: chatSchema, message_thread_id: z.number().int().optional() }).optional(),
  data: z.string().optional(),
});

export function inlineKeyboardOf(rows: readonly ButtonRow[]): InlineKeyboardMarkup {
  return { inline_keyboard: rows.map((row) => row.map((button) => ({ text: button.label, callback_data: button.actionId }))) };
}

export type PressParse = { press: ButtonPress } | { skip: string };

/** The press in a callback_query update, answered through `api`; or why it is none of ours. */
export function pressOf(update: RawUpdate, api: Api): PressParse {
  const parsed = callbackQuerySchema.safeParse(update.callback_query);
  if (!parsed.success) return { skip: `malformed callback_query: ${parsed.error.issues[0]?.message}` };
  const query = parsed.data;
  if (!query.message || query.data === undefined) return { skip: "callback_query without a message or data" };
  const { message, from } = query;
  const chatId = message.chat.id;
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ");
  return {
    press: {
      channel: "telegram",
      id: query.id,
      chat: {
        id: String(chatId),
        type: message.chat.type === "private" ? "direct" : "group",
        ...(message.chat.title !== undefined ? { title: message.chat.title } : {}),
        ...(message.message_thread_id !== undefined ? { threadId: String(message.message_thread_id) } : {}),
      },
      sender: { id: String(from.id), name, ...(from.username !== undefined ? { username: from.username } : {}), isBot: from.is_bot },
      actionId: query.data,
      ...(from.language_code !== undefined ? { locale: from.language_code } : {}),
      messageId: String(message.message_id),
      receivedAt: new Date(),
      answer: (reply) => answer(api, query.id, chatId, message.message_id, reply),
    },
  };
}

async function answer(api: Api, queryId: string, chatId: number, messageId: number, reply: PressAnswer): Promise<void> {
  await api.answerCallbackQuery(queryId, reply.notice !== undefined ? { text: reply.notice } : {});
  if (!reply.clearButtons) return;
  try {
    await api.editMessageReplyMarkup(chatId, messageId, { reply_markup: { inline_keyboard: [] } });
  } catch (err) {
    // Cleared already (a second press raced this one): nothing left to do.
    if (!isNotModifiedError(err)) throw err;
  }
}
