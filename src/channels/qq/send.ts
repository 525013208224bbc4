/**
 * Replies on QQ are passive: every message must carry a received `msg_id`, at most 5 per message, within 60 minutes
 * of it in private chats and 5 in groups (active messages ended in April 2025). Each part takes its own msg_seq
 * before it is posted (see seqs.ts). An answer longer than the replies left to its message (5 parts of 5,000
 * characters at most) is cut, its last part saying so; a send is refused only when none are left. A send with no
 * message to answer (a reminder) uses the chat's latest message while its window is open; outside it the send fails,
 * saying why.
 */
import { readFile, stat } from "node:fs/promises";
import { SendError } from "../../core/send-error.js";
import { PlatformApiError } from "../platform-call.js";
import { sendFailure } from "../send-failure.js";
import type { Speech } from "../../core/i18n.js";
import { chunkText, codePointLength } from "../../core/text.js";
import type { ButtonRow, ChatType, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import { ENGLISH } from "../../infra/i18n/index.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { QqApiError, type QqApi } from "./api.js";
import { keyboardOf } from "./presses.js";
import { KEEP_MS, MAX_REPLIES, REPLY_WINDOW_MINUTES, ReplySeqs, SeqTaken, type Held } from "./seqs.js";

export const MAX_PART_CHARS = 5_000;
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** QQ's code for a msg_id + msg_seq it has seen: the part arrived before. */
const DUPLICATE = 40054005;

/**
 * A chat's latest message, as the store keeps it. Only a message arriving writes it: the replies to a message are
 * counted apart (see seqs.ts), so counting one never writes back an anchor a newer message has replaced.
 */
interface Latest {
  msgId: string;
  at: number;
}

export interface SenderOptions {
  api: QqApi;
  store: Store;
  markdown: boolean;
  appId: string;
  log: Logger;
  now?: () => number;
  /** The words of the notice on an answer cut short, in i18n.default (QQ tells no user's language). */
  speech?: () => Promise<Speech>;
}

export class QqSender {
  private readonly now: () => number;
  private readonly seqs: ReplySeqs;
  private readonly speech: () => Promise<Speech>;

  constructor(private readonly opts: SenderOptions) {
    this.now = opts.now ?? Date.now;
    this.seqs = new ReplySeqs(opts.store, opts.appId);
    this.speech = opts.speech ?? (async () => ENGLISH);
  }

  /**
   * Remembers a message received in `chatId` as what later sends to the chat answer: the last to arrive. Nothing else
   * writes it, so one set is safe on any number of replicas.
   */
  async received(chatId: string, msgId: string, at: Date): Promise<void> {
    await this.anchors().set(this.anchorKey(chatId), { msgId, at: at.getTime() }, KEEP_MS);
  }

  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const chunks = chunkText(text, { maxLength: MAX_PART_CHARS, measure: codePointLength });
    const from = opts.fromPart ?? 0;
    if (from >= Math.min(chunks.length, MAX_REPLIES)) return [];
    const held = await this.reserve(to.chatId, opts, from, chunks.length);
    const parts = chunks.length > held.parts ? cut(chunks, held.parts, `\n\n${(await this.speech()).t("channels.qqCut")}`) : chunks;
    const sent: SentMessage[] = [];
    for (const [index, part] of parts.entries()) {
      if (index < from) continue;
      try {
        const buttons = index === parts.length - 1 ? opts.buttons : undefined;
        sent.push(await this.withSeq(to.chatId, held, index, (seq, fresh) => this.sendPart(to.chatId, part, held.msgId, seq, fresh, buttons)));
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
    const held = await this.reserve(to.chatId, opts, 0, 1);
    const base = kind === "c2c" ? `/v2/users/${id}` : `/v2/groups/${id}`;
    // An upload with srv_send_msg false shows nothing: a failed one is safe to repeat.
    const uploaded = await this.opts.api
      .call("POST", `${base}/files`, { file_type: fileType, file_data: (await readFile(file.path)).toString("base64"), srv_send_msg: false })
      .catch((err: unknown) => {
        throw sendErrorOf(`QQ: uploading ${file.name} failed`, err, true);
      });
    const media = { msg_type: 7, content: file.caption ?? " ", media: { file_info: uploaded.file_info }, msg_id: held.msgId };
    return this.withSeq(to.chatId, held, 0, (seq, fresh) => this.post(to.chatId, `${base}/messages`, { ...media, msg_seq: seq }, fresh));
  }

  /** The values for parts `from` on of an answer of `wanted` parts, cut to what is left; refused when nothing is. */
  private async reserve(chatId: string, opts: SendTextOptions, from: number, wanted: number): Promise<Held> {
    const held = await this.seqs.hold(opts.idempotencyKey, async () => opts.replyTo ?? (await this.latestOpen(chatId)), from, wanted);
    if (held.parts <= from) this.refuse(chatId, `message ${held.msgId} has had its ${MAX_REPLIES} replies`);
    return held;
  }

  /**
   * Posts part `index` with its msg_seq. One another sender posted (an older version of the gateway, which does not
   * count in the store) is replaced by the next value left, and the part posted again: each try takes one of the five.
   */
  private async withSeq(chatId: string, held: Held, index: number, post: (seq: number, fresh: boolean) => Promise<SentMessage>): Promise<SentMessage> {
    for (;;) {
      try {
        return await post(held.seqs.get(index)!, held.fresh.has(index));
      } catch (err) {
        if (!(err instanceof SeqTaken)) throw err;
        this.opts.log.warn({ chatId, err: err.message }, "another sender posted this QQ msg_seq; the part takes the next one");
        if (!(await this.seqs.replace(held, index))) this.refuse(chatId, `message ${held.msgId} has had its ${MAX_REPLIES} replies`);
      }
    }
  }

  /** The chat's latest message while its window is open. */
  private async latestOpen(chatId: string): Promise<string> {
    const latest = await this.anchors().get(this.anchorKey(chatId));
    if (!latest) return this.refuse(chatId, "no message from this chat in the last 60 minutes");
    if (this.now() - latest.at > REPLY_WINDOW_MINUTES[chatTypeOf(chatId)] * 60_000) {
      return this.refuse(chatId, `the chat's last message came ${Math.round((this.now() - latest.at) / 60_000)} minutes ago`);
    }
    return latest.msgId;
  }

  private refuse(chatId: string, reason: string): never {
    const why = `QQ accepts only replies to a user's message, within ${REPLY_WINDOW_MINUTES[chatTypeOf(chatId)]} minutes (${chatTypeOf(chatId) === "direct" ? "private chats" : "groups"}) and at most ${MAX_REPLIES} per message: ${reason}`;
    this.opts.log.warn({ chatId, reason }, "a QQ message outside the reply window cannot be delivered");
    throw new SendError(`QQ: cannot send to ${chatId}: ${why}`, { kind: "rejected" });
  }

  private async sendPart(chatId: string, part: string, msgId: string, seq: number, fresh: boolean, buttons: ButtonRow[] | undefined): Promise<SentMessage> {
    const [kind, id] = split(chatId);
    switch (kind) {
      case "c2c":
      case "group": {
        const path = kind === "c2c" ? `/v2/users/${id}/messages` : `/v2/groups/${id}/messages`;
        const plain = { msg_type: 0, content: part, msg_id: msgId, msg_seq: seq };
        if (!this.opts.markdown) return this.post(chatId, path, plain, fresh);
        try {
          const keyboard = buttons?.length ? { keyboard: keyboardOf(buttons) } : {};
          return await this.post(chatId, path, { msg_type: 2, markdown: { content: part }, ...keyboard, msg_id: msgId, msg_seq: seq }, fresh);
        } catch (err) {
          if (!(err instanceof SendError) || err.kind !== "rejected") throw err;
          // Most often the bot has no Markdown permission: the same part goes as plain text, same msg_seq.
          this.opts.log.warn({ chatId, err: err.message }, "QQ refused the Markdown message; sending it as plain text");
          return this.post(chatId, path, plain, fresh);
        }
      }
      case "channel":
        return this.post(chatId, `/channels/${id}/messages`, { content: part, msg_id: msgId }, fresh);
      case "dm":
        return this.post(chatId, `/dms/${id}/messages`, { content: part, msg_id: msgId }, fresh);
      default:
        throw new SendError(`QQ: ${chatId} is not a chat id the bot can send to (c2c:, group:, channel: or dm:)`, { kind: "rejected" });
    }
  }

  private async post(chatId: string, path: string, body: Record<string, unknown>, fresh: boolean): Promise<SentMessage> {
    try {
      const result = await this.opts.api.call("POST", path, body);
      return { messageId: typeof result.id === "string" ? result.id : `${String(body.msg_id)}:${String(body.msg_seq)}`, sentAt: new Date() };
    } catch (err) {
      if (err instanceof QqApiError && err.code === DUPLICATE) {
        // A retried part QQ has seen (same msg_id and msg_seq) arrived before: this attempt is answered.
        if (!fresh) return { messageId: `${String(body.msg_id)}:${String(body.msg_seq)}`, sentAt: new Date() };
        throw new SeqTaken(`QQ: msg_seq ${String(body.msg_seq)} on message ${String(body.msg_id)} in ${chatId} was posted by another sender`, { cause: err });
      }
      throw sendErrorOf(`QQ: sending to ${chatId} failed`, err, false);
    }
  }

  private anchors() {
    return this.opts.store.namespace<Latest>("meta");
  }

  private anchorKey(chatId: string): string {
    return `qq-anchor:${this.opts.appId}:${chatId}`;
  }
}

export function chatTypeOf(chatId: string): ChatType {
  return chatId.startsWith("c2c:") || chatId.startsWith("dm:") ? "direct" : "group";
}

/** The first `limit` chunks of a longer answer, the last ending with `notice` that it was cut. */
function cut(chunks: string[], limit: number, notice: string): string[] {
  const last = [...chunks[limit - 1]!].slice(0, MAX_PART_CHARS - codePointLength(notice)).join("");
  return [...chunks.slice(0, limit - 1), `${last}${notice}`];
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
