/**
 * Replies and files on their way to DingTalk. A text goes to the message's session webhook while it is valid (the
 * way a robot answers the message in hand), otherwise through the robot send APIs: `/v1.0/robot/oToMessages/batchSend`
 * for a person (chat id: the staff id) and `/v1.0/robot/groupMessages/send` for a group (chat id: `cid...`). Files
 * are uploaded to the media store first and sent through the robot APIs.
 */
import { randomUUID } from "node:crypto";
import { extname } from "node:path";
import { stat } from "node:fs/promises";
import { SendError } from "../../core/send-error.js";
import { PlatformApiError } from "../platform-call.js";
import { sendFailure } from "../send-failure.js";
import { chunkText, codePointLength } from "../../core/text.js";
import type { OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { DingtalkApi } from "./api.js";
import { actionCard } from "./buttons.js";
import { isGroupChat } from "./normalize.js";

/** Robot media: images up to 20 MB, files up to 20 MB. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** A session webhook is not used this close to its expiry. */
const WEBHOOK_MARGIN_MS = 60_000;
/** Session webhook errcode of "sending too fast". */
const WEBHOOK_RATE_LIMIT = "130101";

export interface SenderOptions {
  api: DingtalkApi;
  robotCode: string;
  format: "markdown" | "text";
  maxMessageLength: number;
  /** The origin session webhooks must have (oapi's): a webhook elsewhere is not followed. */
  webhookOrigin: string;
  log: Logger;
  now?: () => number;
}

interface Webhook {
  url: string;
  expiresAt: number;
}

type Payload = { msgKey: string; msgParam: Record<string, unknown> };

export class DingtalkSender {
  /** The latest valid session webhook of each chat. */
  private readonly webhooks = new Map<string, Webhook>();
  private readonly now: () => number;

  constructor(private readonly opts: SenderOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Keeps a message's session webhook for replies to its chat, when it is DingTalk's. */
  rememberWebhook(chatId: string, url: string | undefined, expiresAt: number | undefined): void {
    if (!url || !expiresAt) return;
    try {
      if (new URL(url).origin !== new URL(this.opts.webhookOrigin).origin) {
        this.opts.log.warn({ chatId }, "ignored a session webhook outside DingTalk's oapi host");
        return;
      }
    } catch {
      return;
    }
    this.webhooks.set(chatId, { url, expiresAt });
  }

  parts(text: string): string[] {
    return chunkText(text, { maxLength: this.opts.maxMessageLength, measure: codePointLength });
  }

  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const sent: SentMessage[] = [];
    const parts = this.parts(text);
    for (const [index, part] of parts.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const buttons = index === parts.length - 1 ? opts.buttons : undefined;
      try {
        sent.push(await (buttons?.length ? this.robotSend(to.chatId, actionCard(titleOf(part), part, buttons)) : this.sendPart(to.chatId, part)));
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    return sent;
  }

  async sendFile(to: OutboundTarget, file: OutboundFile): Promise<SentMessage> {
    const { size } = await stat(file.path);
    if (size > MAX_UPLOAD_BYTES) throw new SendError(`DingTalk: ${file.name} is larger than ${MAX_UPLOAD_BYTES} bytes`, { kind: "rejected" });
    const image = file.kind === "image";
    // An upload shows nothing in the chat: a failed one is safe to repeat.
    const mediaId = await this.opts.api.upload(image ? "image" : "file", file.path, file.name).catch((err: unknown) => {
      throw sendErrorOf(`DingTalk: uploading ${file.name} failed`, err, true);
    });
    const payload: Payload = image
      ? { msgKey: "sampleImageMsg", msgParam: { photoURL: mediaId } }
      : { msgKey: "sampleFile", msgParam: { mediaId, fileName: file.name, fileType: extname(file.name).slice(1) || "file" } };
    const sent = await this.robotSend(to.chatId, payload);
    if (file.caption) await this.sendText(to, file.caption);
    return sent;
  }

  /** One part as sendText sends it: through the session webhook while it is valid, else the robot API. */
  sendPart(chatId: string, part: string): Promise<SentMessage> {
    const webhook = this.webhooks.get(chatId);
    if (webhook && webhook.expiresAt - WEBHOOK_MARGIN_MS > this.now()) return this.webhookSend(chatId, webhook.url, part);
    const payload: Payload =
      this.opts.format === "markdown" ? { msgKey: "sampleMarkdown", msgParam: { title: titleOf(part), text: part } } : { msgKey: "sampleText", msgParam: { content: part } };
    return this.robotSend(chatId, payload);
  }

  private async webhookSend(chatId: string, url: string, part: string): Promise<SentMessage> {
    const body = this.opts.format === "markdown" ? { msgtype: "markdown", markdown: { title: titleOf(part), text: part } } : { msgtype: "text", text: { content: part } };
    try {
      await this.opts.api.webhook(url, body);
    } catch (err) {
      throw sendErrorOf(`DingTalk: replying to chat ${chatId} through its session webhook failed`, err, false);
    }
    // A session webhook answers no message id.
    return { messageId: `webhook-${randomUUID()}`, sentAt: new Date() };
  }

  private async robotSend(chatId: string, payload: Payload): Promise<SentMessage> {
    const { api, robotCode } = this.opts;
    const group = isGroupChat(chatId);
    const msgParam = JSON.stringify(payload.msgParam);
    let result: Record<string, unknown>;
    try {
      result = group
        ? await api.call("POST", "/v1.0/robot/groupMessages/send", { robotCode, openConversationId: chatId, msgKey: payload.msgKey, msgParam })
        : await api.call("POST", "/v1.0/robot/oToMessages/batchSend", { robotCode, userIds: [chatId], msgKey: payload.msgKey, msgParam });
    } catch (err) {
      throw sendErrorOf(`DingTalk: sending ${payload.msgKey} to ${group ? "group" : "user"} ${chatId} failed`, err, false);
    }
    if (listed(result.invalidStaffIdList, chatId)) throw new SendError(`DingTalk: ${chatId} is not a staff id the robot can write to`, { kind: "rejected" });
    if (listed(result.flowControlledStaffIdList, chatId)) throw new SendError(`DingTalk: messages to ${chatId} are flow-controlled`, { kind: "rate_limited" });
    return { messageId: typeof result.processQueryKey === "string" ? result.processQueryKey : randomUUID(), sentAt: new Date() };
  }
}

function listed(list: unknown, id: string): boolean {
  return Array.isArray(list) && list.includes(id);
}

/** A Markdown message's title: what notifications show, the first line without its Markdown. */
function titleOf(part: string): string {
  const line = part.split("\n").find((l) => l.trim() !== "") ?? "";
  const plain = line.replace(/[#>*_`~[\]]/g, "").trim();
  return [...plain].slice(0, 20).join("") || "Reply";
}

/** How a failed call counts for the retry policy; `harmless`: nothing shows in the chat, so a repeat is safe. */
export function sendErrorOf(message: string, err: unknown, harmless: boolean): SendError {
  const call = err instanceof PlatformApiError ? { httpStatus: err.httpStatus, uncertain: err.uncertain, rateLimited: err.code === WEBHOOK_RATE_LIMIT } : null;
  return sendFailure(`${message}: ${(err as Error).message}`, err, call, harmless);
}
