/**
 * Replies on QQ are passive: every message must carry a received `msg_id`, at most 5 per message, within 60 minutes
 * of it in private chats and 5 in groups (active messages ended in April 2025). Parts of one answer carry
 * `msg_seq` 1, 2, 3...: the same msg_id + msg_seq is QQ's deduplication key, so a retried part never posts twice. An
 * answer longer than 5 parts of 5,000 characters is cut, its last part saying so. A send with no message to answer
 * (a reminder) uses the chat's latest message while its window is open; outside it the send fails, saying why.
 */
import { readFile, stat } from "node:fs/promises";
import { SendError } from "../../core/send-error.js";
import { PlatformApiError } from "../platform-call.js";
import { sendFailure } from "../send-failure.js";
import { chunkText, codePointLength } from "../../core/text.js";
import type { ButtonRow, ChatType, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { QqApiError, type QqApi } from "./api.js";
import { keyboardOf } from "./presses.js";

export const MAX_PART_CHARS = 5_000;
export const MAX_REPLIES = 5;
/** How long QQ accepts replies to a message, in minutes. */
export const REPLY_WINDOW_MINUTES = { direct: 60, group: 5 } as const;
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const CUT_NOTICE = "\n\n…(cut: QQ allows 5 messages per answer)";
/** QQ's code for a msg_id + msg_seq it has seen: the part arrived before. */
const DUPLICATE = 40054005;

/** The message a send answers, and the highest msg_seq used on it so far. */
interface Anchor {
  msgId: string;
  used: number;
}

/**
 * A chat's latest message, as the store keeps it. Only a message arriving writes it: the replies to a message are
 * counted apart (see `markUsed`), so counting one never writes back an anchor a newer message has replaced.
 */
interface Latest {
  msgId: string;
  at: number;
}

/** How long the store keeps an anchor and its replies' msg_seq values: the longest window in which QQ takes a reply. */
const KEEP_MS = REPLY_WINDOW_MINUTES.direct * 60_000;

export interface SenderOptions {
  api: QqApi;
  store: Store;
  markdown: boolean;
  appId: string;
  log: Logger;
  now?: () => number;
}

export class QqSender {
  private readonly now: () => number;

  constructor(private readonly opts: SenderOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The parts of an answer: at most 5 of up to 5,000 characters, the last saying when the answer was cut. */
  parts(text: string): string[] {
    const chunks = chunkText(text, { maxLength: MAX_PART_CHARS, measure: codePointLength });
    if (chunks.length <= MAX_REPLIES) return chunks;
    const last = [...chunks[MAX_REPLIES - 1]!].slice(0, MAX_PART_CHARS - codePointLength(CUT_NOTICE)).join("");
    return [...chunks.slice(0, MAX_REPLIES - 1), `${last}${CUT_NOTICE}`];
  }

  /**
   * Remembers a message received in `chatId` as what later sends to the chat answer: the last to arrive. Nothing else
   * writes it, so one set is safe on any number of replicas.
   */
  async received(chatId: string, msgId: string, at: Date): Promise<void> {
    await this.anchors().set(this.anchorKey(chatId), { msgId, at: at.getTime() }, KEEP_MS);
  }

  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const parts = this.parts(text);
    const anchor = await this.anchorFor(to.chatId, opts.replyTo, parts.length);
    const sent: SentMessage[] = [];
    for (const [index, part] of parts.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      try {
        // A reply's parts are numbered from 1, so a retried part repeats its msg_seq; other sends continue after it.
        const seq = opts.replyTo !== undefined ? index + 1 : anchor.used + index + 1 - (opts.fromPart ?? 0);
        const buttons = index === parts.length - 1 ? opts.buttons : undefined;
        sent.push(await this.sendPart(to.chatId, part, anchor.msgId, seq, buttons));
        await this.markUsed(anchor.msgId, seq);
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    return sent;
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const [kind, id] = split(to.chatId);
    if (kind !== "c2c" && kind !== "group") throw new SendError(`QQ: files can be sent only to private chats and groups, not ${to.chatId}`, { kind: "rejected" });
    const fileType = file.kind === "image" ? 1 : file.kind === "video" ? 2 : null;
    if (fileType === null) throw new SendError(`QQ: the bot API takes images and video only (file_type 4 is not open); ${file.name} was not sent`, { kind: "rejected" });
    if ((await stat(file.path)).size > MAX_UPLOAD_BYTES) throw new SendError(`QQ: ${file.name} is larger than ${MAX_UPLOAD_BYTES} bytes`, { kind: "rejected" });
    const anchor = await this.anchorFor(to.chatId, opts.replyTo, 1);
    const base = kind === "c2c" ? `/v2/users/${id}` : `/v2/groups/${id}`;
    // An upload with srv_send_msg false shows nothing: a failed one is safe to repeat.
    const uploaded = await this.opts.api
      .call("POST", `${base}/files`, { file_type: fileType, file_data: (await readFile(file.path)).toString("base64"), srv_send_msg: false })
      .catch((err: unknown) => {
        throw sendErrorOf(`QQ: uploading ${file.name} failed`, err, true);
      });
    const seq = anchor.used + 1;
    const body = { msg_type: 7, content: file.caption ?? " ", media: { file_info: uploaded.file_info }, msg_id: anchor.msgId, msg_seq: seq };
    const sent = await this.post(to.chatId, `${base}/messages`, body);
    await this.markUsed(anchor.msgId, seq);
    return sent;
  }

  /** The message to answer: `replyTo` when given, else the chat's latest while its window is open. */
  private async anchorFor(chatId: string, replyTo: string | undefined, parts: number): Promise<Anchor> {
    if (replyTo !== undefined) return { msgId: replyTo, used: await this.usedOn(replyTo) };
    const latest = await this.anchors().get(this.anchorKey(chatId));
    const used = latest ? await this.usedOn(latest.msgId) : 0;
    const windowMs = REPLY_WINDOW_MINUTES[chatTypeOf(chatId)] * 60_000;
    let reason: string | undefined;
    if (!latest) reason = "no message from this chat in the last 60 minutes";
    else if (this.now() - latest.at > windowMs) reason = `the chat's last message came ${Math.round((this.now() - latest.at) / 60_000)} minutes ago`;
    else if (used + parts > MAX_REPLIES) reason = `the chat's last message has had its ${MAX_REPLIES} replies`;
    if (reason !== undefined || !latest) {
      const why = `QQ accepts only replies to a user's message, within ${REPLY_WINDOW_MINUTES[chatTypeOf(chatId)]} minutes (${chatTypeOf(chatId) === "direct" ? "private chats" : "groups"}) and at most ${MAX_REPLIES} per message: ${reason}`;
      this.opts.log.warn({ chatId, reason }, "a QQ message outside the reply window cannot be delivered");
      throw new SendError(`QQ: cannot send to ${chatId}: ${why}`, { kind: "rejected" });
    }
    return { msgId: latest.msgId, used };
  }

  /** The highest msg_seq used on `msgId`; 0 before its first reply. */
  private async usedOn(msgId: string): Promise<number> {
    const [seqs] = await this.opts.store.tallies("meta").read([this.repliesKey(msgId)]);
    return Math.max(0, ...Object.keys(seqs ?? {}).map(Number));
  }

  /**
   * Records `seq` as used on `msgId`: a field per msg_seq, added to in one atomic step, so replicas replying to the
   * same message at once lose none, and a repeated part (same msg_seq) counts once.
   */
  private async markUsed(msgId: string, seq: number): Promise<void> {
    await this.opts.store.tallies("meta").add([{ key: this.repliesKey(msgId), amounts: { [String(seq)]: 1 }, ttlMs: KEEP_MS }]);
  }

  private async sendPart(chatId: string, part: string, msgId: string, seq: number, buttons: ButtonRow[] | undefined): Promise<SentMessage> {
    const [kind, id] = split(chatId);
    switch (kind) {
      case "c2c":
      case "group": {
        const path = kind === "c2c" ? `/v2/users/${id}/messages` : `/v2/groups/${id}/messages`;
        const plain = { msg_type: 0, content: part, msg_id: msgId, msg_seq: seq };
        if (!this.opts.markdown) return this.post(chatId, path, plain);
        try {
          const keyboard = buttons?.length ? { keyboard: keyboardOf(buttons) } : {};
          return await this.post(chatId, path, { msg_type: 2, markdown: { content: part }, ...keyboard, msg_id: msgId, msg_seq: seq });
        } catch (err) {
          if (!(err instanceof SendError) || err.kind !== "rejected") throw err;
          // Most often the bot has no Markdown permission: the same part goes as plain text, same msg_seq.
          this.opts.log.warn({ chatId, err: err.message }, "QQ refused the Markdown message; sending it as plain text");
          return this.post(chatId, path, plain);
        }
      }
      case "channel":
        return this.post(chatId, `/channels/${id}/messages`, { content: part, msg_id: msgId });
      case "dm":
        return this.post(chatId, `/dms/${id}/messages`, { content: part, msg_id: msgId });
      default:
        throw new SendError(`QQ: ${chatId} is not a chat id the bot can send to (c2c:, group:, channel: or dm:)`, { kind: "rejected" });
    }
  }

  private async post(chatId: string, path: string, body: Record<string, unknown>): Promise<SentMessage> {
    try {
      const result = await this.opts.api.call("POST", path, body);
      return { messageId: typeof result.id === "string" ? result.id : `${String(body.msg_id)}:${String(body.msg_seq)}`, sentAt: new Date() };
    } catch (err) {
      // A part QQ has seen (same msg_id and msg_seq) arrived before: this retry is answered.
      if (err instanceof QqApiError && err.code === DUPLICATE) return { messageId: `${String(body.msg_id)}:${String(body.msg_seq)}`, sentAt: new Date() };
      throw sendErrorOf(`QQ: sending to ${chatId} failed`, err, false);
    }
  }

  private anchors() {
    return this.opts.store.namespace<Latest>("meta");
  }

  private anchorKey(chatId: string): string {
    return `qq-anchor:${this.opts.appId}:${chatId}`;
  }

  private repliesKey(msgId: string): string {
    return `qq-replies:${this.opts.appId}:${msgId}`;
  }
}

export function chatTypeOf(chatId: string): ChatType {
  return chatId.startsWith("c2c:") || chatId.startsWith("dm:") ? "direct" : "group";
}

function split(chatId: string): [string, string] {
  const at = chatId.indexOf(":");
  return at < 0 ? ["", chatId] : [chatId.slice(0, at), chatId.slice(at + 1)];
}

/** How a failed call counts for the retry policy; `harmless`: nothing shows in the chat, so a repeat is safe. */
export function sendErrorOf(message: string, err: unknown, harmless: boolean): SendError {
  const call = err instanceof PlatformApiError ? { httpStatus: err.httpStatus, uncertain: err.uncertain } : null;
  return sendFailure(`${message}: ${(err as Error).message}`, err, call, harmless);
}
