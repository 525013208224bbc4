/**
 * What get_voice_file and get_image_file answer: the matching attachments of the message asked about (the
 * current one, the one it replies to, or a given id), downloaded into the workspace, with their facts. A message
 * without such media gets a clear "found: false" with the reason, never an error.
 */
import { open, stat } from "node:fs/promises";
import { relative } from "node:path";
import { frame } from "../core/framing.js";
import type { Attachment } from "../core/types.js";
import type { ToolContext } from "../core/tools.js";
import { sniff, SNIFF_BYTES } from "./file-kinds.js";
import { imageSizeOf } from "./image-size.js";
import { isSpoken, MediaError, type InboundMedia, type MediaScope } from "./inbound.js";
import type { MediaRecord } from "./media-records.js";
import { oggOpusInfo } from "./ogg-opus.js";

export type MediaAnswer = { found: false; message: string } | { found: true; message_id: string; files: Array<Record<string, unknown>> };

export function voiceFiles(media: InboundMedia, messageId: string | undefined, ctx: ToolContext): Promise<MediaAnswer> {
  return answer(media, messageId, ctx, { wanted: isSpoken, what: "voice or audio message" }, async (record, index, path, scope) => {
    const attachment = record.attachments[index] as Attachment;
    const transcription = await media.transcribe(record, index, scope);
    const durationSec = attachment.durationSec ?? (await oggOpusInfo(path))?.durationSec;
    return {
      duration_sec: durationSec !== undefined ? Math.round(durationSec * 10) / 10 : null,
      ...("text" in transcription ? { transcript: frame("transcript", transcription.text) } : { transcript_error: transcription.failure }),
    };
  });
}

export function imageFiles(media: InboundMedia, messageId: string | undefined, ctx: ToolContext): Promise<MediaAnswer> {
  const isImage = (a: Attachment): boolean => a.kind === "image";
  return answer(media, messageId, ctx, { wanted: isImage, what: "image" }, async (_record, _index, path) => {
    const size = await imageSizeOf(path);
    return { width: size?.width ?? null, height: size?.height ?? null };
  });
}

interface Wanted {
  wanted: (attachment: Attachment) => boolean;
  /** Names the media in "found: false" answers. */
  what: string;
}

type Details = (record: MediaRecord, index: number, path: string, scope: MediaScope) => Promise<Record<string, unknown>>;

async function answer(media: InboundMedia, messageId: string | undefined, ctx: ToolContext, want: Wanted, details: Details): Promise<MediaAnswer> {
  const found = await findRecord(media, messageId, ctx, want);
  if ("message" in found) return { found: false, message: found.message };
  const { record } = found;
  const scope: MediaScope = { workspaceDir: ctx.workspaceDir, log: ctx.log, signal: ctx.signal };
  const files: Array<Record<string, unknown>> = [];
  for (const [index, attachment] of record.attachments.entries()) {
    if (!want.wanted(attachment)) continue;
    const base = { attachment: index + 1, kind: attachment.kind };
    try {
      const path = await media.localPath(record, index, scope);
      files.push({ ...base, path: relative(ctx.workspaceDir, path), ...(await facts(attachment, path)), ...(await details(record, index, path, scope)) });
    } catch (err) {
      if (!(err instanceof MediaError)) throw err;
      files.push({ ...base, error: err.message });
    }
  }
  return { found: true, message_id: record.messageId, files };
}

async function findRecord(
  media: InboundMedia,
  messageId: string | undefined,
  ctx: ToolContext,
  want: Wanted,
): Promise<{ record: MediaRecord } | { message: string }> {
  const current = ctx.message;
  if (!current) return { message: "There is no current chat message in this run, so there is no media to get." };
  const has = (record: MediaRecord | undefined): record is MediaRecord => record?.attachments.some(want.wanted) === true;
  if (messageId !== undefined) {
    const record = await media.record(current, messageId);
    if (has(record)) return { record };
    return {
      message: record
        ? `Message ${messageId} has no ${want.what}.`
        : `No message ${messageId} is known in this chat: only messages sent to me recently are (downloads are kept for a limited time).`,
    };
  }
  const own = await media.record(current, current.platformMessageId);
  if (has(own)) return { record: own };
  const replied = current.replyTo ? await media.record(current, current.replyTo.messageId) : undefined;
  if (has(replied)) return { record: replied };
  const reply = current.replyTo
    ? ` It replies to message ${current.replyTo.messageId}, which has no ${want.what} I know of (I only see media of messages sent to me).`
    : " It does not reply to another message; ask the user to reply to the one they mean, or pass its message_id.";
  return { message: `The current message has no ${want.what}.${reply}` };
}

/** Mime and size from the downloaded file itself: the platform's metadata may be missing. */
async function facts(attachment: Attachment, path: string): Promise<{ mime: string; size: number }> {
  const { size } = await stat(path);
  if (attachment.mime !== undefined) return { mime: attachment.mime, size };
  const file = await open(path, "r");
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    return { mime: (await sniff(buffer.subarray(0, bytesRead), path)).mime, size };
  } finally {
    await file.close();
  }
}
