/**
 * A fake Telegram Bot API server for tests: real HTTP on 127.0.0.1, port 0, speaking the protocol grammY speaks
 * (POST /bot<token>/<method> with JSON or multipart, `{ok, result}` or `{ok:false, error_code, description,
 * parameters}` replies, GET /file/bot<token>/<path> for downloads). getUpdates is a true long poll. HTML is checked
 * as Telegram checks it, lengths are measured after parsing. Tests inject faults per method, read what the bot
 * sent, and push updates by polling or by webhook (signed with the secret the bot set).
 */
import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError } from "./api-error.js";
import { FakeKeyboards, keyboardOf, type CallbackUser, type InlineButton, type MenuEntry } from "./keyboards.js";
import { parseTelegramHtml } from "./html.js";
import { unknownParameter } from "./parameters.js";
import { boundaryOf, parseMultipart } from "./multipart.js";
import { UpdateQueue, type PollAnswer } from "./update-queue.js";

export type Fault =
  | { kind: "error"; code: number; description: string; retryAfter?: number }
  /** The connection is cut before the call is carried out. */
  | { kind: "drop" }
  /** The call is carried out, then the connection is cut before the answer. */
  | { kind: "dropAfter" }
  /** Never answered. */
  | { kind: "hang" };

export const faults = {
  tooManyRequests: (seconds: number): Fault => ({ kind: "error", code: 429, description: `Too Many Requests: retry after ${seconds}`, retryAfter: seconds }),
  serverError: (): Fault => ({ kind: "error", code: 500, description: "Internal Server Error" }),
  conflict: (): Fault => ({ kind: "error", code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" }),
  cantParseEntities: (): Fault => ({ kind: "error", code: 400, description: "Bad Request: can't parse entities: unsupported start tag \"x\" at byte offset 0" }),
};

/** A message the bot sent, as the fake recorded it. */
export interface SentRecord {
  method: string;
  messageId: number;
  chatId: string;
  text?: string;
  caption?: string;
  parseMode?: string;
  threadId?: number;
  replyTo?: number;
  file?: { field: string; filename?: string; data: Buffer };
  /** The `duration` an audio or voice upload declared, in seconds. */
  duration?: number;
  /** When the fake received it (Date.now()). */
  at: number;
  /** Set by deleteMessage: the message is gone from the chat. */
  deleted?: boolean;
  /** The inline keyboard under the message now (reply_markup.inline_keyboard). */
  keyboard?: InlineButton[][];
}

export type { CallbackUser, InlineButton, MenuEntry } from "./keyboards.js";

/** An editMessageText that changed a message, or a sendMessageDraft, with the time the fake received it. */
export interface TimedText {
  chatId: string;
  /** The edited message, or the draft id. */
  id: number;
  text: string;
  at: number;
}

export interface ApiCall {
  method: string;
  params: Record<string, unknown>;
}

export interface FakeFile {
  file_id: string;
  file_unique_id: string;
  file_size: number;
}

export interface FakeTelegram {
  /** The apiRoot to give the bot. */
  url: string;
  token: string;
  bot: { id: number; username: string; first_name: string };
  calls: ApiCall[];
  sent: SentRecord[];
  /** Edits that changed a message, oldest first. */
  edits: TimedText[];
  /** Drafts shown in private chats, oldest first. */
  drafts: TimedText[];
  /** answerCallbackQuery calls, oldest first. */
  callbackAnswers: Array<{ queryId: string; text?: string }>;
  /** The command menus set with setMyCommands: scope ("all_private_chats", "chat:123", "all_private_chats/zh" for a language) -> commands. */
  commandMenus: Map<string, MenuEntry[]>;
  /** Presses the inline button labelled `label` under the message as `from` would: a callback_query update. */
  press(chatId: string, messageId: number, label: string, from: CallbackUser): string;
  /** The bot's reactions on messages now: "chatId/messageId" -> emoji. */
  reactions: Map<string, string[]>;
  /** The messages of a chat as its members see them now (deleted ones left out). */
  visible(chatId: string): SentRecord[];
  chatActions: Array<{ chatId: string; action: string; threadId?: number }>;
  webhook: { url: string; secretToken?: string } | undefined;
  /** Queues an update for getUpdates; answers its update_id. */
  addUpdate(update: Record<string, unknown>): number;
  /** When getUpdates last handed out each update (update_id -> performance.now()), to time a bot's pickup. */
  handedOut: Map<number, number>;
  /** Updates no getUpdates offset has confirmed yet. */
  pendingUpdates(): number;
  /** How many held getUpdates calls were ended with 409 by a concurrent one (two pollers on one token). */
  conflicts(): number;
  /** Makes a file downloadable. `size` may claim more than `data` holds; `path` may be absolute (--local mode). */
  addFile(data: Buffer, opts?: { size?: number; path?: string }): FakeFile;
  /** The next `times` calls of `method` meet `fault`. */
  fail(method: string, fault: Fault, times?: number): void;
  /** From now on, each call of `method` not met by a queued fault meets `pick()` when it answers one; null stops it. */
  failAtRandom(method: string, pick: (() => Fault | undefined) | null): void;
  /** POSTs the update to the webhook as Telegram would; answers the HTTP status. */
  pushWebhook(update: Record<string, unknown>, opts?: { url?: string; secret?: string | null }): Promise<number>;
  callsOf(method: string): ApiCall[];
  /** Resolves with the first truthy value `probe` returns, checked after every call; rejects after `timeoutMs`. */
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const DOWNLOAD_LIMIT = 20 * 1024 * 1024;
const UPLOAD_FIELDS: Record<string, string> = { sendPhoto: "photo", sendDocument: "document", sendVoice: "voice", sendAudio: "audio", sendVideo: "video" };


export async function startFakeTelegram(opts: { token?: string; username?: string; now?: () => number } = {}): Promise<FakeTelegram> {
  // Edits and drafts are stamped on the clock the test gave the gateway, to compare their spacing.
  const now = opts.now ?? Date.now;
  const token = opts.token ?? "123456:TEST-fake-telegram-token";
  const bot = { id: Number(token.split(":")[0]), username: opts.username ?? "switchboard_test_bot", first_name: "Switchboard" };
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const queue = new UpdateQueue();
  const faultQueue = new Map<string, Fault[]>();
  const randomFaults = new Map<string, () => Fault | undefined>();
  const files = new Map<string, FakeFile & { path: string; data: Buffer }>();
  let nextMessageId = 5000;
  let nextFile = 1;
  const keyboards = new FakeKeyboards();

  const fake: FakeTelegram = {
    url: "",
    token,
    bot,
    calls: [],
    sent: [],
    edits: [],
    drafts: [],
    reactions: new Map(),
    callbackAnswers: keyboards.answers,
    commandMenus: keyboards.menus,
    press(chatId, messageId, label, from) {
      const target = fake.sent.find((m) => m.chatId === chatId && m.messageId === messageId && !m.deleted);
      if (!target) throw new Error(`fake-telegram: no message ${messageId} in chat ${chatId}`);
      const { queryId, update } = keyboards.press({ chatId, messageId, text: target.text }, label, from, bot);
      queue.add(update);
      return queryId;
    },
    visible: (chatId) => fake.sent.filter((s) => s.chatId === chatId && !s.deleted),
    chatActions: [],
    webhook: undefined,
    addUpdate: (update) => queue.add(update),
    handedOut: new Map(),
    conflicts: () => queue.conflicts,
    pendingUpdates: () => queue.pending.length,
    addFile(data, fileOpts = {}) {
      const n = nextFile++;
      const file = { file_id: `file-${n}`, file_unique_id: `u${n}`, file_size: fileOpts.size ?? data.length, path: fileOpts.path ?? `documents/file_${n}.bin`, data };
      files.set(file.file_id, file);
      return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.file_size };
    },
    fail(method, fault, times = 1) {
      faultQueue.set(method, [...(faultQueue.get(method) ?? []), ...Array.from({ length: times }, () => fault)]);
    },
    failAtRandom(method, pick) {
      if (pick) randomFaults.set(method, pick);
      else randomFaults.delete(method);
    },
    async pushWebhook(update, pushOpts = {}) {
      const url = pushOpts.url ?? fake.webhook?.url;
      if (!url) throw new Error("fake-telegram: no webhook set and no url given");
      const secret = pushOpts.secret === undefined ? fake.webhook?.secretToken : pushOpts.secret;
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}) },
        body: JSON.stringify(update),
      });
      await response.arrayBuffer();
      return response.status;
    },
    callsOf: (method) => fake.calls.filter((call) => call.method === method),
    waitFor(probe, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const value = probe();
          if (!value) return;
          done();
          resolve(value);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`fake-telegram: condition not met within ${timeoutMs} ms; calls: ${fake.calls.map((c) => c.method).join(", ")}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          changes.off("change", check);
        };
        changes.on("change", check);
        check();
      });
    },
    async close() {
      queue.endWaiter({ ok: true, updates: [] });
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };

  const changed = () => changes.emit("change");

  function record(method: string, chatId: string, params: Record<string, unknown>, extra: Partial<SentRecord>): object {
    const messageId = nextMessageId++;
    keyboards.show(chatId, messageId, keyboardOf(params));
    fake.sent.push({
      method,
      messageId,
      chatId,
      at: Date.now(),
      ...(typeof params.parse_mode === "string" ? { parseMode: params.parse_mode } : {}),
      ...(params.message_thread_id !== undefined ? { threadId: Number(params.message_thread_id) } : {}),
      ...(replyTarget(params) !== undefined ? { replyTo: replyTarget(params) } : {}),
      ...(keyboardOf(params) ? { keyboard: keyboardOf(params) } : {}),
      ...extra,
    });
    const chat = { id: Number(chatId), type: Number(chatId) > 0 ? "private" : "supergroup" };
    return { message_id: messageId, date: Math.floor(Date.now() / 1000), chat, from: { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username } };
  }

  /** Checks text or a caption as Telegram would; answers what is stored. */
  function checkText(value: unknown, parseMode: unknown, limit: number, what: "message text" | "message caption"): string {
    const raw = typeof value === "string" ? value : "";
    const parsed = parseMode === "HTML" ? parseTelegramHtml(raw) : { ok: true as const, text: raw };
    if (!parsed.ok) throw new ApiError(400, parsed.error);
    if (what === "message text" && parsed.text.trim() === "") throw new ApiError(400, "Bad Request: message text is empty");
    if (parsed.text.length > limit) throw new ApiError(400, `Bad Request: ${what === "message text" ? "message is too long" : "message caption is too long"}`);
    return raw;
  }

  function requireChat(params: Record<string, unknown>): string {
    const chatId = params.chat_id;
    if (chatId === undefined || chatId === "") throw new ApiError(400, "Bad Request: chat_id is empty");
    return String(chatId);
  }

  function upload(method: string, params: Record<string, unknown>, parts: Map<string, { filename?: string; data: Buffer }>): object {
    const chatId = requireChat(params);
    const field = UPLOAD_FIELDS[method]!;
    const value = params[field];
    const attached = typeof value === "string" && value.startsWith("attach://") ? parts.get(value.slice("attach://".length)) : undefined;
    if (!attached) throw new ApiError(400, `Bad Request: there is no ${field} in the request`);
    const caption = params.caption !== undefined ? checkText(params.caption, params.parse_mode, CAPTION_LIMIT, "message caption") : undefined;
    const duration = params.duration !== undefined ? { duration: Number(params.duration) } : {};
    const message = record(method, chatId, params, { ...(caption !== undefined ? { caption } : {}), ...duration, file: { field, ...attached } });
    const stored = fake.addFile(attached.data);
    return { ...message, [field === "photo" ? "photo" : field]: field === "photo" ? [{ ...stored, width: 1, height: 1 }] : stored };
  }

  function call(method: string, params: Record<string, unknown>, parts: Map<string, { filename?: string; data: Buffer }>): object | boolean {
    switch (method) {
      case "getMe":
        return { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false };
      case "getWebhookInfo":
        return { url: fake.webhook?.url ?? "", has_custom_certificate: false, pending_update_count: queue.pending.length };
      case "deleteWebhook":
        fake.webhook = undefined;
        return true;
      case "setWebhook": {
        const secret = params.secret_token;
        if (typeof params.url !== "string" || params.url === "") throw new ApiError(400, "Bad Request: bad webhook: an HTTPS URL must be provided for webhook");
        if (secret !== undefined && (typeof secret !== "string" || !/^[A-Za-z0-9_-]{1,256}$/.test(secret))) {
          throw new ApiError(400, "Bad Request: secret token contains unallowed characters");
        }
        fake.webhook = { url: params.url, ...(typeof secret === "string" ? { secretToken: secret } : {}) };
        return true;
      }
      case "sendMessage": {
        const chatId = requireChat(params);
        const text = checkText(params.text, params.parse_mode, TEXT_LIMIT, "message text");
        return { ...record(method, chatId, params, { text }), text };
      }
      case "editMessageText": {
        const target = fake.sent.find((s) => s.messageId === Number(params.message_id) && s.chatId === String(params.chat_id) && !s.deleted);
        if (!target) throw new ApiError(400, "Bad Request: message to edit not found");
        const text = checkText(params.text, params.parse_mode, TEXT_LIMIT, "message text");
        // Telegram compares what the message shows (text and formatting) and its keyboard, not the request's markup.
        const sameKeyboard = keyboardOf(params) === undefined || JSON.stringify(keyboardOf(params)) === JSON.stringify(target.keyboard ?? []);
        if (shownAs(text, params.parse_mode) === shownAs(target.text ?? "", target.parseMode) && sameKeyboard) {
          throw new ApiError(400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message");
        }
        target.text = text;
        if (typeof params.parse_mode === "string") target.parseMode = params.parse_mode;
        else delete target.parseMode;
        fake.edits.push({ chatId: target.chatId, id: target.messageId, text, at: now() });
        const chat = { id: Number(target.chatId), type: Number(target.chatId) > 0 ? "private" : "supergroup" };
        return { message_id: target.messageId, date: Math.floor(Date.now() / 1000), chat, text };
      }
      case "editMessageReplyMarkup": {
        const target = fake.sent.find((s) => s.messageId === Number(params.message_id) && s.chatId === String(params.chat_id) && !s.deleted);
        if (!target) throw new ApiError(400, "Bad Request: message to edit not found");
        const keyboard = keyboardOf(params) ?? [];
        if (JSON.stringify(keyboard) === JSON.stringify(target.keyboard ?? [])) {
          throw new ApiError(400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message");
        }
        keyboards.show(target.chatId, target.messageId, keyboard);
        if (keyboard.length > 0) target.keyboard = keyboard;
        else delete target.keyboard;
        return true;
      }
      case "answerCallbackQuery":
        return keyboards.answer(params);
      case "setMyCommands":
        return keyboards.setCommands(params);
      case "deleteMessage": {
        const target = fake.sent.find((s) => s.messageId === Number(params.message_id) && s.chatId === String(params.chat_id) && !s.deleted);
        if (!target) throw new ApiError(400, "Bad Request: message to delete not found");
        target.deleted = true;
        return true;
      }
      case "setMessageReaction": {
        const chatId = requireChat(params);
        const reaction = Array.isArray(params.reaction) ? (params.reaction as Array<{ type?: unknown; emoji?: unknown }>) : [];
        if (reaction.some((r) => r.type !== "emoji" || typeof r.emoji !== "string")) throw new ApiError(400, "Bad Request: REACTION_INVALID");
        if (reaction.length > 1) throw new ApiError(400, "Bad Request: REACTIONS_TOO_MANY");
        fake.reactions.set(`${chatId}/${Number(params.message_id)}`, reaction.map((r) => String(r.emoji)));
        return true;
      }
      case "sendMessageDraft": {
        const chatId = requireChat(params);
        if (Number(chatId) <= 0) throw new ApiError(400, "Bad Request: drafts can be sent only to private chats");
        if (!Number.isInteger(params.draft_id) || params.draft_id === 0) throw new ApiError(400, "Bad Request: draft_id must be non-zero");
        const raw = typeof params.text === "string" ? params.text : "";
        const parsed = params.parse_mode === "HTML" ? parseTelegramHtml(raw) : { ok: true as const, text: raw };
        if (!parsed.ok) throw new ApiError(400, parsed.error);
        if (parsed.text.length > TEXT_LIMIT) throw new ApiError(400, "Bad Request: message is too long");
        fake.drafts.push({ chatId, id: Number(params.draft_id), text: raw, at: now() });
        return true;
      }
      case "sendChatAction":
        fake.chatActions.push({ chatId: requireChat(params), action: String(params.action), ...(params.message_thread_id !== undefined ? { threadId: Number(params.message_thread_id) } : {}) });
        return true;
      case "getFile": {
        const file = files.get(String(params.file_id));
        if (!file) throw new ApiError(400, "Bad Request: invalid file_id");
        if (file.file_size > DOWNLOAD_LIMIT) throw new ApiError(400, "Bad Request: file is too big");
        return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.file_size, file_path: file.path };
      }
      default:
        if (method in UPLOAD_FIELDS) return upload(method, params, parts);
        throw new ApiError(404, "Not Found");
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(path);
    if (req.method === "GET" && fileMatch) return serveFile(fileMatch[1]!, decodeURIComponent(fileMatch[2]!), res);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (!match) return sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    if (match[1] !== token) return sendJson(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const method = match[2]!;
    const { params, parts } = await readParams(req);
    fake.calls.push({ method, params });
    const unknown = unknownParameter(method, params);
    if (unknown !== undefined) {
      sendJson(res, 400, { ok: false, error_code: 400, description: `Bad Request: unknown parameter "${unknown}" for ${method} (the fake refuses what Telegram would silently ignore)` });
      changed();
      return;
    }
    const fault = faultQueue.get(method)?.shift() ?? randomFaults.get(method)?.();
    if (fault?.kind === "drop" || fault?.kind === "hang") {
      if (fault.kind === "drop") req.socket.destroy();
      changed();
      return;
    }
    if (fault?.kind === "error") {
      const parameters = fault.retryAfter !== undefined ? { parameters: { retry_after: fault.retryAfter } } : {};
      sendJson(res, fault.code, { ok: false, error_code: fault.code, description: fault.description, ...parameters });
      changed();
      return;
    }
    if (method === "getUpdates") return longPoll(req, res, params);
    try {
      const result = call(method, params, parts);
      if (fault?.kind === "dropAfter") req.socket.destroy();
      else sendJson(res, 200, { ok: true, result });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      sendJson(res, err.code, { ok: false, error_code: err.code, description: err.description });
    }
    changed();
  }

  function longPoll(req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>): void {
    if (fake.webhook) {
      sendJson(res, 409, { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" });
      changed();
      return;
    }
    const offset = params.offset !== undefined ? Number(params.offset) : undefined;
    const answer = (result: PollAnswer) => {
      if (result.ok) {
        const at = performance.now();
        for (const update of result.updates) fake.handedOut.set(update.update_id, at);
        sendJson(res, 200, { ok: true, result: result.updates });
      } else {
        sendJson(res, result.code, { ok: false, error_code: result.code, description: result.description });
      }
      changed();
    };
    const cancel = queue.poll(offset, Number(params.limit ?? 100), Number(params.timeout ?? 0), answer);
    res.on("close", cancel);
    changed();
  }

  function serveFile(fileToken: string, filePath: string, res: ServerResponse): void {
    const file = [...files.values()].find((f) => f.path === filePath);
    if (fileToken !== token || !file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.data.length });
    res.end(file.data);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { ok: false, error_code: 500, description: `fake-telegram: ${String(err)}` });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** JSON or multipart parameters; multipart values that hold JSON objects are parsed, as the Bot API does. */
async function readParams(req: IncomingMessage): Promise<{ params: Record<string, unknown>; parts: Map<string, { filename?: string; data: Buffer }> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const contentType = req.headers["content-type"] ?? "";
  const parts = new Map<string, { filename?: string; data: Buffer }>();
  if (contentType.startsWith("multipart/form-data")) {
    const params: Record<string, unknown> = {};
    for (const part of parseMultipart(body, boundaryOf(contentType) ?? "")) {
      if (part.filename !== undefined) parts.set(part.name, { filename: part.filename, data: part.data });
      else params[part.name] = parseValue(part.data.toString("utf8"));
    }
    return { params, parts };
  }
  if (body.length === 0) return { params: {}, parts };
  try {
    return { params: JSON.parse(body.toString("utf8")) as Record<string, unknown>, parts };
  } catch {
    throw new ApiError(400, "Bad Request: can't parse JSON");
  }
}

function parseValue(value: string): unknown {
  if (!/^[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const TAG_SYNONYMS: Record<string, string> = { strong: "b", em: "i", ins: "u", strike: "s", del: "s" };
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/**
 * What a message shows, as a key: its text and formatting, with the tags that mean the same taken as one and
 * character references as the characters they stand for (marked, so `&lt;b&gt;` never reads as a tag).
 */
function shownAs(text: string, parseMode: unknown): string {
  if (parseMode !== "HTML") return text;
  return text
    .replace(/<(\/?)([a-z-]+)/gi, (_, close: string, name: string) => `<${close}${TAG_SYNONYMS[name.toLowerCase()] ?? name.toLowerCase()}`)
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
      const char = body.startsWith("#") ? String.fromCodePoint(Number(body[1]!.toLowerCase() === "x" ? `0${body.slice(1)}` : body.slice(1))) : NAMED[body.toLowerCase()];
      return char === undefined ? whole : `\u0001${char}`;
    });
}

function replyTarget(params: Record<string, unknown>): number | undefined {
  const reply = params.reply_parameters as { message_id?: unknown } | undefined;
  return typeof reply?.message_id === "number" ? reply.message_id : undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
