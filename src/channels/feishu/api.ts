/**
 * The Feishu Open API as the channel uses it: one SDK Client with its own token cache and transport, every call
 * retried by one policy, every answer checked. Callers get ids back, or a FeishuApiError naming the call, the
 * HTTP status and Feishu's code.
 */
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import * as lark from "@larksuiteoapi/node-sdk";
import { z } from "zod";
import type { Logger } from "../../infra/log.js";
import { feishuHttp } from "./http.js";
import { DEFAULT_RETRY, SEND_ONCE, withRetries, type RetryPolicy } from "./retry.js";
import { sdkLogger, TokenCache } from "./sdk.js";

export interface FeishuApiOptions {
  appId: string;
  appSecret: string;
  /** Open API base URL, e.g. https://open.feishu.cn. */
  baseUrl: string;
  log: Logger;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

export interface BotInfo {
  openId: string;
  name: string;
}

export type MessageType = "text" | "post" | "interactive" | "image" | "file" | "audio";

export interface OutgoingMessage {
  chatId: string;
  /** Answer this message instead of posting to the chat. */
  replyTo?: string;
  /** With replyTo: the answer goes into the message's thread. */
  inThread?: boolean;
  msgType: MessageType;
  /** The message content as Feishu wants it: a JSON string. */
  content: string;
  /** Idempotency key: Feishu sends at most one message per uuid within an hour, so a retry never duplicates. */
  uuid: string;
}

export type ResourceType = "image" | "file";
export type UploadFileType = "opus" | "mp4" | "pdf" | "doc" | "xls" | "ppt" | "stream";

const botInfoSchema = z.object({ bot: z.object({ open_id: z.string().min(1), app_name: z.string().optional() }) });

export class FeishuApi {
  private readonly client: lark.Client;
  private readonly tokens = new TokenCache();
  private readonly retry: RetryPolicy;

  constructor(private readonly opts: FeishuApiOptions) {
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.client = new lark.Client({
      appId: opts.appId,
      appSecret: opts.appSecret,
      domain: opts.baseUrl,
      cache: this.tokens,
      httpInstance: feishuHttp(opts.timeoutMs),
      logger: sdkLogger(opts.log),
      loggerLevel: lark.LoggerLevel.info,
    });
  }

  async botInfo(): Promise<BotInfo> {
    const body = await this.call("get bot info", (c) =>
      c.request<unknown>({ method: "GET", url: "/open-apis/bot/v3/info" }),
    );
    const parsed = botInfoSchema.safeParse(body);
    if (!parsed.success) throw new Error("Feishu's bot info answer carries no bot open_id");
    return { openId: parsed.data.bot.open_id, name: parsed.data.bot.app_name ?? "" };
  }

  /** Sends one message; resolves with its message_id. */
  async send(message: OutgoingMessage): Promise<string> {
    const { chatId, replyTo, msgType, content, uuid } = message;
    const data = { msg_type: msgType, content, uuid };
    const result = await this.sendCall(`send a ${msgType} message`, (c) =>
      replyTo !== undefined
        ? c.im.v1.message.reply({
            path: { message_id: replyTo },
            data: { ...data, reply_in_thread: message.inThread === true },
          })
        : // A user's open_id as the chat reaches them in a direct chat (the owners' pairing notices).
          c.im.v1.message.create({ params: { receive_id_type: chatId.startsWith("ou_") ? "open_id" : "chat_id" }, data: { ...data, receive_id: chatId } }),
    );
    const id = result.data?.message_id;
    if (!id) throw new Error(`Feishu accepted a ${msgType} message for chat ${chatId} but returned no message_id`);
    return id;
  }

  /** Creates a card entity (card JSON 2.0) for CardKit; resolves with its card_id. */
  async createCard(card: object): Promise<string> {
    const result = await this.sendCall("create a card entity", (c) =>
      c.cardkit.v1.card.create({ data: { type: "card_json", data: JSON.stringify(card) } }),
    );
    const id = result.data?.card_id;
    if (!id) throw new Error("Feishu accepted a card entity but returned no card_id");
    return id;
  }

  /** Replaces the text of a streaming card's element with `content` (the full text); `sequence` must grow per card. */
  async streamCardText(cardId: string, elementId: string, content: string, sequence: number): Promise<void> {
    await this.sendCall("stream a card element's text", (c) =>
      c.cardkit.v1.cardElement.content({ path: { card_id: cardId, element_id: elementId }, data: { content, sequence } }),
    );
  }

  /** Updates a card entity's `config` (e.g. streaming_mode off); `sequence` continues the card's. */
  async cardSettings(cardId: string, config: object, sequence: number): Promise<void> {
    await this.sendCall("update a card's settings", (c) =>
      c.cardkit.v1.card.settings({ path: { card_id: cardId }, data: { settings: JSON.stringify({ config }), sequence } }),
    );
  }

  /** Replaces the content of a sent message: PATCH for a card, PUT (an edit) for text and posts. */
  async editMessage(messageId: string, msgType: MessageType, content: string): Promise<void> {
    await this.sendCall(`edit a ${msgType} message`, (c) =>
      msgType === "interactive"
        ? c.im.v1.message.patch({ path: { message_id: messageId }, data: { content } })
        : c.im.v1.message.update({ path: { message_id: messageId }, data: { msg_type: msgType, content } }),
    );
  }

  /** Recalls a message the bot sent. */
  async deleteMessage(messageId: string): Promise<void> {
    await this.sendCall("recall a message", (c) => c.im.v1.message.delete({ path: { message_id: messageId } }));
  }

  /** Puts the bot's reaction `emojiType` on a message; resolves with the reaction_id that takes it back. */
  async addReaction(messageId: string, emojiType: string): Promise<string> {
    const result = await this.sendCall("add a reaction", (c) =>
      c.im.v1.messageReaction.create({ path: { message_id: messageId }, data: { reaction_type: { emoji_type: emojiType } } }),
    );
    const id = result.data?.reaction_id;
    if (!id) throw new Error(`Feishu accepted a reaction on message ${messageId} but returned no reaction_id`);
    return id;
  }

  async deleteReaction(messageId: string, reactionId: string): Promise<void> {
    await this.sendCall("remove a reaction", (c) =>
      c.im.v1.messageReaction.delete({ path: { message_id: messageId, reaction_id: reactionId } }),
    );
  }

  /** Uploads an image for a message (at most 10 MB); resolves with its image_key. */
  async uploadImage(path: string): Promise<string> {
    const result = await this.sendCall("upload an image", (c) =>
      withStream(path, (image) => c.im.v1.image.create({ data: { image_type: "message", image } })),
    );
    if (!result?.image_key) throw new Error("Feishu accepted an image upload but returned no image_key");
    return result.image_key;
  }

  /** Uploads a file (at most 30 MB); resolves with its file_key. `durationMs` is for opus voice. */
  async uploadFile(path: string, fileType: UploadFileType, fileName: string, durationMs?: number): Promise<string> {
    const result = await this.sendCall(`upload a ${fileType} file`, (c) =>
      withStream(path, (file) =>
        c.im.v1.file.create({
          data: {
            file_type: fileType,
            file_name: fileName,
            file,
            ...(durationMs !== undefined ? { duration: durationMs } : {}),
          },
        }),
      ),
    );
    if (!result?.file_key) throw new Error("Feishu accepted a file upload but returned no file_key");
    return result.file_key;
  }

  /** The bytes of an image or file a user sent in message `messageId`. */
  async resource(
    messageId: string,
    fileKey: string,
    type: ResourceType,
  ): Promise<{ stream: Readable; mime: string | undefined }> {
    const result = await this.call(`download a message ${type}`, (c) =>
      c.im.v1.messageResource.get({ params: { type }, path: { message_id: messageId, file_key: fileKey } }),
    );
    const mime = (result.headers as Record<string, unknown> | undefined)?.["content-type"];
    return { stream: result.getReadableStream(), mime: typeof mime === "string" ? mime : undefined };
  }

  /** When the cached tenant access token will be replaced; null before the first call. */
  tokenExpiry(): Date | null {
    return this.tokens.tenantTokenExpiry(this.opts.appId);
  }

  private call<T>(what: string, fn: (client: lark.Client) => Promise<T>, policy = this.retry): Promise<T> {
    const hooks = { what, log: this.opts.log, dropToken: () => this.tokens.clear() };
    return withRetries(() => fn(this.client), policy, hooks);
  }

  /** Sends and uploads: one try (and one with a fresh token); the outbound service owns their retries. */
  private sendCall<T>(what: string, fn: (client: lark.Client) => Promise<T>): Promise<T> {
    return this.call(what, fn, SEND_ONCE);
  }
}

/** A fresh stream per try (a retried upload cannot reuse a consumed one), closed whatever happens. */
async function withStream<T>(path: string, fn: (stream: ReturnType<typeof createReadStream>) => Promise<T>): Promise<T> {
  const stream = createReadStream(path);
  try {
    return await fn(stream);
  } finally {
    stream.destroy();
  }
}
