/**
 * Replies and files on their way to WeCom through `/cgi-bin/message/send` (a person's chat with the app) or
 * `/cgi-bin/appchat/send` (an app group chat, chat id `appchat:<chatid>`). A text is cut into parts of at most
 * 2,048 bytes of UTF-8 on character boundaries (WeCom silently truncates longer ones); Markdown goes as WeCom's
 * markdown message, and as plain text when WeCom refuses it. Buttons make the last part a template card.
 */
import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import { stat } from "node:fs/promises";
import { SendError } from "../../core/send-error.js";
import { PlatformApiError } from "../platform-call.js";
import { sendFailure } from "../send-failure.js";
import { chunkText } from "../../core/text.js";
import type { ButtonRow, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import { WecomApiError, type WecomApi } from "./api.js";

/** WeCom's limit for a text or markdown message, in bytes. */
export const MAX_TEXT_BYTES = 2_048;
/** Temporary media: files up to 20 MB (images 10 MB, voice 2 MB of AMR, video 10 MB). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** A template card carries at most 6 buttons. */
const MAX_BUTTONS = 6;
const APPCHAT_PREFIX = "appchat:";
/** Errcodes of "slow down": API frequency and per-member message limits. */
const RATE_LIMITS = new Set([45009, 45033, 45047]);

const STYLES = { primary: 1, secondary: 2, danger: 3 } as const;

export interface SenderOptions {
  api: WecomApi;
  agentId: number;
  format: "markdown" | "text";
  log: Logger;
  /** Told of each template card sent (its task id), for the presses on it. */
  onCard?: (taskId: string) => void;
}

type Body = { msgtype: string } & Record<string, unknown>;

export class WecomSender {
  constructor(private readonly opts: SenderOptions) {}

  /** The parts sendText sends for this text, in order. */
  parts(text: string): string[] {
    return chunkText(text, { maxLength: MAX_TEXT_BYTES, measure: (s) => Buffer.byteLength(s, "utf8") });
  }

  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const parts = this.parts(text);
    const sent: SentMessage[] = [];
    for (const [index, part] of parts.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const buttons = index === parts.length - 1 && !isAppChat(to.chatId) ? opts.buttons : undefined;
      try {
        sent.push(await (buttons?.length ? this.post(to, buttonCard(part, buttons, this.opts.onCard)) : this.sendPart(to, part)));
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    return sent;
  }

  async sendFile(to: OutboundTarget, file: OutboundFile): Promise<SentMessage> {
    const { size } = await stat(file.path);
    const type = file.kind === "image" && size <= MAX_IMAGE_BYTES ? "image" : file.kind === "video" && size <= MAX_IMAGE_BYTES ? "video" : "file";
    if (size > MAX_UPLOAD_BYTES) throw new SendError(`WeCom: ${file.name} is larger than ${MAX_UPLOAD_BYTES} bytes`, { kind: "rejected" });
    // An upload shows nothing in the chat: a failed one is safe to repeat.
    const mediaId = await this.opts.api.upload(type, file.path, file.name || basename(file.path)).catch((err: unknown) => {
      throw sendErrorOf(`WeCom: uploading ${file.name} failed`, err, true);
    });
    const sent = await this.post(to, { msgtype: type, [type]: { media_id: mediaId } });
    if (file.caption) await this.sendText(to, file.caption);
    return sent;
  }

  private async sendPart(to: OutboundTarget, part: string): Promise<SentMessage> {
    if (this.opts.format === "text") return this.post(to, { msgtype: "text", text: { content: part } });
    try {
      return await this.post(to, { msgtype: "markdown", markdown: { content: part } });
    } catch (err) {
      if (!(err instanceof SendError) || err.kind !== "rejected") throw err;
      this.opts.log.warn({ chatId: to.chatId, err: err.message }, "WeCom refused the reply as markdown; sending it as text");
      return this.post(to, { msgtype: "text", text: { content: part } });
    }
  }

  private async post(to: OutboundTarget, body: Body): Promise<SentMessage> {
    const { api, agentId } = this.opts;
    const group = isAppChat(to.chatId);
    const what = `sending a ${body.msgtype} message to ${group ? "app group chat" : "user"} ${to.chatId}`;
    try {
      const result = group
        ? await api.call("POST", "/cgi-bin/appchat/send", { chatid: to.chatId.slice(APPCHAT_PREFIX.length), safe: 0, ...body })
        : await api.call("POST", "/cgi-bin/message/send", { touser: to.chatId, agentid: agentId, safe: 0, ...body });
      // An app group chat's send answers no message id.
      return { messageId: typeof result.msgid === "string" ? result.msgid : randomUUID(), sentAt: new Date() };
    } catch (err) {
      throw sendErrorOf(`WeCom: ${what} failed`, err, false);
    }
  }
}

export function isAppChat(chatId: string): boolean {
  return chatId.startsWith(APPCHAT_PREFIX);
}

/** A button_interaction template card showing `text`, with the rows' first buttons; the key is the action id. */
function buttonCard(text: string, rows: ButtonRow[], onCard: ((taskId: string) => void) | undefined): Body {
  const taskId = `sb_${randomUUID().replace(/-/g, "")}`;
  onCard?.(taskId);
  const [first = "", ...rest] = text.split("\n");
  return {
    msgtype: "template_card",
    template_card: {
      card_type: "button_interaction",
      // The main title is at most 36 characters; the rest of the part follows as the card's text.
      main_title: { title: [...first].slice(0, 36).join("").trim() || "…" },
      sub_title_text: [...first].length > 36 ? text : rest.join("\n"),
      task_id: taskId,
      button_list: rows.flat().slice(0, MAX_BUTTONS).map((b) => ({ text: b.label, key: b.actionId, style: STYLES[b.style ?? "primary"] })),
    },
  };
}

/** How a failed call counts for the retry policy; `harmless`: nothing shows in the chat, so a repeat is safe. */
export function sendErrorOf(message: string, err: unknown, harmless: boolean): SendError {
  const code = err instanceof WecomApiError ? err.code : null;
  const call = err instanceof PlatformApiError ? { httpStatus: err.httpStatus, uncertain: err.uncertain, rateLimited: code !== null && RATE_LIMITS.has(code), busy: code === -1 } : null;
  return sendFailure(`${message}: ${(err as Error).message}`, err, call, harmless);
}
