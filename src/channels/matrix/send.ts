/**
 * Messages on their way to Matrix: `PUT /rooms/{roomId}/send/{type}/{txnId}`, where the transaction id comes from
 * the send's idempotency key, so a repeated attempt is answered with the event already sent instead of a second one.
 * An answer goes in one event when it fits (events are at most 65,536 bytes, envelope included), else in parts cut
 * at paragraph or line boundaries. In a thread every part stays in it (m.thread); the first part answers the
 * message (m.in_reply_to). Files go to the content repository first, then as m.image / m.audio / m.video / m.file.
 */
import { readFile } from "node:fs/promises";
import { fileTypeFromBuffer } from "file-type";
import { partKey } from "../../core/ids.js";
import { SendError } from "../../core/send-error.js";
import { chunkText } from "../../core/text.js";
import type { OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import { enc, freshTxnId, matrixSendError, type MatrixApi } from "./api.js";
import { contentBytes, defuseRoomMentions, textContent } from "./format.js";

/** Longest part, in UTF-8 bytes of Markdown: with its HTML twice that, it fits an event with room for the envelope. */
export const TEXT_LIMIT = 30_000;
/** Room left in 65,536 bytes for what the homeserver adds (ids, signatures, hashes, unsigned). */
const MAX_CONTENT_BYTES = 64_000;
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024;

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8");

/** The parts of an answer, the same for every attempt: whole when it fits, else cut smaller until each part fits. */
export function textParts(markdown: string): string[] {
  for (let limit = TEXT_LIMIT; ; limit = Math.floor(limit / 2)) {
    const parts = chunkText(markdown, { maxLength: limit, measure: utf8Length }).map((p) => p.replace(/^\n+|\n+$/g, ""));
    // HTML can be several times its Markdown (escaped characters): then the parts get smaller.
    if (limit < 2_000 || parts.every((p) => contentBytes(textContent(p)) <= MAX_CONTENT_BYTES)) return parts;
  }
}

type Relation = Record<string, unknown>;

/** Where a part goes: into the thread, answering `replyTo` (the first part only, outside a thread). */
export function relationOf(to: OutboundTarget, replyTo: string | undefined, first: boolean): Relation | undefined {
  if (to.threadId !== undefined) {
    return { rel_type: "m.thread", event_id: to.threadId, is_falling_back: !first || replyTo === undefined, "m.in_reply_to": { event_id: (first ? replyTo : undefined) ?? to.threadId } };
  }
  return first && replyTo !== undefined ? { "m.in_reply_to": { event_id: replyTo } } : undefined;
}

export class MatrixSender {
  constructor(private readonly api: MatrixApi) {}

  async sendText(to: OutboundTarget, markdown: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const parts = textParts(markdown);
    const sent: SentMessage[] = [];
    for (const [index, part] of parts.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const txnId = opts.idempotencyKey !== undefined ? partKey(opts.idempotencyKey, index, 32) : freshTxnId();
      try {
        sent.push(await this.sendPart(to, part, opts.replyTo, index === 0, txnId));
      } catch (err) {
        throw matrixSendError(err, `sending part ${index + 1} of ${parts.length} to ${to.chatId}`, opts.idempotencyKey !== undefined).withSent(sent);
      }
    }
    return sent;
  }

  /** One part as sendText sends it; the transaction id makes repeating it safe. */
  async sendPart(to: OutboundTarget, markdown: string, replyTo: string | undefined, first: boolean, txnId = freshTxnId()): Promise<SentMessage> {
    const relation = relationOf(to, replyTo, first);
    const eventId = await this.send(to.chatId, "m.room.message", { ...textContent(markdown), ...(relation ? { "m.relates_to": relation } : {}) }, txnId);
    return { messageId: eventId, sentAt: new Date() };
  }

  /** Replaces what event `eventId` shows (m.replace); the fallback for clients without edits is short. */
  async edit(roomId: string, eventId: string, markdown: string): Promise<void> {
    const content = textContent(markdown);
    const fallback = `* ${[...content.body].slice(0, 1_000).join("")}`;
    await this.send(roomId, "m.room.message", { msgtype: content.msgtype, body: fallback, "m.new_content": content, "m.relates_to": { rel_type: "m.replace", event_id: eventId }, "m.mentions": {} }, freshTxnId());
  }

  async redact(roomId: string, eventId: string): Promise<void> {
    await this.api.call({ method: "PUT", path: `/_matrix/client/v3/rooms/${enc(roomId)}/redact/${enc(eventId)}/${freshTxnId()}`, body: {} });
  }

  /** An annotation (reaction) on `eventId`; answers the reaction's own event id, to take it back by redaction. */
  react(roomId: string, eventId: string, key: string): Promise<string> {
    return this.send(roomId, "m.reaction", { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key } }, freshTxnId());
  }

  async typing(roomId: string, userId: string): Promise<void> {
    await this.api.call({ method: "PUT", path: `/_matrix/client/v3/rooms/${enc(roomId)}/typing/${enc(userId)}`, body: { typing: true, timeout: 30_000 } });
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const bytes = await readFile(file.path);
    if (bytes.length > UPLOAD_LIMIT_BYTES) throw new SendError(`Matrix: ${file.name} is ${bytes.length} bytes; the bot uploads at most ${UPLOAD_LIMIT_BYTES}`, { kind: "rejected" });
    const mime = file.mime ?? (await fileTypeFromBuffer(bytes))?.mime ?? "application/octet-stream";
    const upload = await this.api
      .call<{ content_uri?: string }>({ method: "POST", path: "/_matrix/media/v3/upload", query: { filename: file.name }, body: { bytes, contentType: mime } })
      .catch((err: unknown) => {
        throw matrixSendError(err, `uploading ${file.name}`, false);
      });
    if (typeof upload.content_uri !== "string") throw new SendError(`Matrix: the upload of ${file.name} answered no content_uri`, { kind: "uncertain" });
    const relation = relationOf(to, opts.replyTo, true);
    const txnId = opts.idempotencyKey !== undefined ? partKey(opts.idempotencyKey, "file", 32) : freshTxnId();
    const content = { ...mediaContent(file, mime, bytes.length, upload.content_uri), ...(relation ? { "m.relates_to": relation } : {}) };
    try {
      return { messageId: await this.send(to.chatId, "m.room.message", content, txnId), sentAt: new Date() };
    } catch (err) {
      throw matrixSendError(err, `sending ${file.name} to ${to.chatId}`, opts.idempotencyKey !== undefined);
    }
  }

  private async send(roomId: string, type: string, content: object, txnId: string): Promise<string> {
    const answer = await this.api.call<{ event_id?: string }>({ method: "PUT", path: `/_matrix/client/v3/rooms/${enc(roomId)}/send/${enc(type)}/${enc(txnId)}`, body: content });
    if (typeof answer.event_id !== "string") throw new SendError(`Matrix accepted an event in ${roomId} without an event id`, { kind: "uncertain" });
    return answer.event_id;
  }
}

const MSGTYPES = { image: "m.image", voice: "m.audio", audio: "m.audio", video: "m.video", file: "m.file" } as const;

/** A media event (caption as body, file name apart, as Matrix 1.10 has it); a voice note is marked as one. */
function mediaContent(file: OutboundFile, mime: string, size: number, url: string): object {
  const duration = file.durationSec !== undefined ? Math.round(file.durationSec * 1000) : undefined;
  const caption = file.caption !== undefined ? textContent(file.caption) : undefined;
  return {
    msgtype: MSGTYPES[file.kind],
    body: caption?.body ?? defuseRoomMentions(file.name),
    ...(caption?.formatted_body !== undefined ? { format: caption.format, formatted_body: caption.formatted_body } : {}),
    filename: file.name,
    url,
    info: { mimetype: mime, size, ...(duration !== undefined ? { duration } : {}) },
    ...(file.kind === "voice" ? { "org.matrix.msc3245.voice": {}, "org.matrix.msc1767.audio": { ...(duration !== undefined ? { duration } : {}) } } : {}),
    "m.mentions": {},
  };
}
