/**
 * The fake Bot API's inline keyboards and command menus: which buttons each message showed (a client may still show
 * buttons the bot has just taken off, and they can be pressed), callback queries pressed and answered once with
 * answerCallbackQuery, and the command lists set per scope and language with setMyCommands, checked as Telegram checks them.
 */
import { ApiError } from "./api-error.js";

export interface InlineButton {
  text: string;
  callback_data: string;
}

/** A user as a callback_query's `from`. */
export interface CallbackUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
  /** The IETF tag of the user's app language, as Telegram sends it. */
  language_code?: string;
}

/** One BotCommand as set with setMyCommands. */
export interface MenuEntry {
  command: string;
  description: string;
}

export class FakeKeyboards {
  /** answerCallbackQuery calls, oldest first. */
  readonly answers: Array<{ queryId: string; text?: string }> = [];
  /**
   * The command lists by scope ("all_private_chats", "chat:123", ...), followed by "/" and the language_code for a
   * list set for one language ("all_private_chats/zh").
   */
  readonly menus = new Map<string, MenuEntry[]>();
  /** Every inline button a message ever carried: "chatId/messageId" -> buttons. */
  private readonly shown = new Map<string, InlineButton[]>();
  /** Callback queries pressed and not answered yet: each may be answered once. */
  private readonly open = new Set<string>();
  private nextQueryId = 900_000;

  show(chatId: string, messageId: number, keyboard: InlineButton[][] | undefined): void {
    const key = `${chatId}/${messageId}`;
    if (keyboard) this.shown.set(key, [...(this.shown.get(key) ?? []), ...keyboard.flat()]);
  }

  /** The callback_query update a press of the button labelled `label` sends. */
  press(
    target: { chatId: string; messageId: number; text?: string | undefined },
    label: string,
    from: CallbackUser,
    bot: { id: number; username: string; first_name: string },
  ): { queryId: string; update: Record<string, unknown> } {
    const { chatId, messageId } = target;
    const button = this.shown.get(`${chatId}/${messageId}`)?.find((b) => b.text === label);
    if (!button) throw new Error(`fake-telegram: no button "${label}" under message ${messageId} in chat ${chatId}`);
    const queryId = String(this.nextQueryId++);
    this.open.add(queryId);
    const chat = { id: Number(chatId), type: Number(chatId) > 0 ? "private" : "supergroup" };
    const botUser = { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username };
    const message = { message_id: messageId, date: Math.floor(Date.now() / 1000), chat, from: botUser, ...(target.text !== undefined ? { text: target.text } : {}) };
    return { queryId, update: { callback_query: { id: queryId, from, message, chat_instance: `ci${chatId}`, data: button.callback_data } } };
  }

  answer(params: Record<string, unknown>): true {
    const queryId = String(params.callback_query_id ?? "");
    if (!this.open.delete(queryId)) throw new ApiError(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
    if (params.text !== undefined && (typeof params.text !== "string" || params.text.length > 200)) throw new ApiError(400, "Bad Request: MESSAGE_TOO_LONG");
    this.answers.push({ queryId, ...(typeof params.text === "string" ? { text: params.text } : {}) });
    return true;
  }

  setCommands(params: Record<string, unknown>): true {
    const commands = Array.isArray(params.commands) ? (params.commands as Array<{ command?: unknown; description?: unknown }>) : undefined;
    if (!commands || commands.length > 100) throw new ApiError(400, "Bad Request: commands must be an array of at most 100 BotCommand");
    for (const c of commands) {
      if (typeof c.command !== "string" || !/^[a-z0-9_]{1,32}$/.test(c.command)) throw new ApiError(400, "Bad Request: BOT_COMMAND_INVALID");
      if (typeof c.description !== "string" || c.description.length < 1 || c.description.length > 256) throw new ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
    }
    const language = params.language_code ?? "";
    // Telegram takes a two-letter ISO 639-1 code, or none for the users whose language has no list of its own.
    if (typeof language !== "string" || (language !== "" && !/^[a-z]{2}$/.test(language))) throw new ApiError(400, "Bad Request: invalid language code specified");
    const key = scopeKeyOf(params.scope) + (language === "" ? "" : `/${language}`);
    this.menus.set(key, commands.map((c) => ({ command: String(c.command), description: String(c.description) })));
    return true;
  }
}

/** The inline keyboard of a request; a callback_data outside 1-64 bytes is refused as Telegram does. */
export function keyboardOf(params: Record<string, unknown>): InlineButton[][] | undefined {
  const markup = params.reply_markup as { inline_keyboard?: unknown } | undefined;
  if (!markup || !Array.isArray(markup.inline_keyboard)) return undefined;
  const rows = markup.inline_keyboard as Array<Array<{ text?: unknown; callback_data?: unknown }>>;
  for (const button of rows.flat()) {
    const data = typeof button.callback_data === "string" ? Buffer.byteLength(button.callback_data) : 0;
    if (typeof button.text !== "string" || data < 1 || data > 64) throw new ApiError(400, "Bad Request: BUTTON_DATA_INVALID");
  }
  return rows.map((row) => row.map((b) => ({ text: String(b.text), callback_data: String(b.callback_data) })));
}

function scopeKeyOf(scope: unknown): string {
  const s = (scope ?? { type: "default" }) as { type?: unknown; chat_id?: unknown };
  if (s.type === "chat") return `chat:${String(s.chat_id)}`;
  if (typeof s.type !== "string" || !["default", "all_private_chats", "all_group_chats", "all_chat_administrators"].includes(s.type)) {
    throw new ApiError(400, "Bad Request: can't parse BotCommandScope");
  }
  return s.type;
}
