/**
 * Files in and out of Feishu. Inbound media is fetched on demand with im.messageResource.get, so an attachment's
 * ref names both the message and the key. Outbound files are uploaded as images (im.image.create) or files
 * (im.file.create, typed by extension) and then sent as a message of the matching type.
 */
import { open, rm, mkdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Attachment, OutboundFile } from "../../core/types.js";
import { safeFileName } from "../../core/file-names.js";
import type { FeishuApi, MessageType, UploadFileType } from "./api.js";

export const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_FILE_UPLOAD_BYTES = 30 * 1024 * 1024;
const MAX_IMAGE_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Feishu ids and keys are made of letters, digits, `_` and `-`; anything else never reaches a URL path. */
const KEY_PATTERN = /^[\w-]{1,256}$/;

export function resourceRef(messageId: string, key: string): string | null {
  return KEY_PATTERN.test(messageId) && KEY_PATTERN.test(key) ? `${messageId}/${key}` : null;
}

function parseResourceRef(ref: string): { messageId: string; key: string } | null {
  const [messageId, key, ...rest] = ref.split("/");
  if (messageId === undefined || key === undefined || rest.length > 0) return null;
  return resourceRef(messageId, key) === null ? null : { messageId, key };
}

/** Downloads an attachment of a received message into `into`; resolves with the new file's path. */
export async function downloadAttachment(api: FeishuApi, attachment: Attachment, into: string): Promise<string> {
  const parsed = parseResourceRef(attachment.ref);
  if (!parsed) throw new Error(`Not a Feishu attachment reference: ${JSON.stringify(attachment.ref)}`);
  const { messageId, key } = parsed;
  const { stream, mime } = await api.resource(messageId, key, attachment.kind === "image" ? "image" : "file");
  await mkdir(into, { recursive: true, mode: 0o700 });
  const { path, handle } = await createUnique(into, fileNameFor(attachment, key, mime));
  try {
    await pipeline(stream, atMost(MAX_DOWNLOAD_BYTES), handle.createWriteStream());
    return path;
  } catch (err) {
    stream.destroy();
    await rm(path, { force: true });
    const reason = (err as Error).message;
    throw new Error(`Downloading ${attachment.kind} ${key} of message ${messageId} failed: ${reason}`, { cause: err });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export interface Upload {
  /** "image" for im.image.create, otherwise the file_type of im.file.create. */
  as: "image" | UploadFileType;
  msgType: Extract<MessageType, "image" | "file" | "audio">;
  durationMs?: number;
}

/** How a file is uploaded and sent; throws when Feishu would refuse it. */
export async function planUpload(file: OutboundFile): Promise<Upload> {
  const { size } = await stat(file.path);
  if (size === 0) throw new Error(`Feishu does not accept empty files (${file.name})`);
  if (size > MAX_FILE_UPLOAD_BYTES) {
    throw new Error(`${file.name} has ${size} bytes; Feishu accepts files up to ${MAX_FILE_UPLOAD_BYTES} bytes`);
  }
  const ext = extname(file.name || file.path).toLowerCase();
  // Larger images still arrive, as files.
  if (file.kind === "image" && size <= MAX_IMAGE_UPLOAD_BYTES) return { as: "image", msgType: "image" };
  if ((file.kind === "voice" || file.kind === "audio") && (ext === ".opus" || ext === ".ogg")) {
    const duration = file.durationSec !== undefined ? { durationMs: Math.round(file.durationSec * 1000) } : {};
    return { as: "opus", msgType: "audio", ...duration };
  }
  // A video message ("media") needs a cover image; an mp4 sent as a file plays all the same.
  return { as: FILE_TYPES[ext] ?? "stream", msgType: "file" };
}

const FILE_TYPES: Record<string, UploadFileType> = {
  ".mp4": "mp4",
  ".pdf": "pdf",
  ".doc": "doc",
  ".docx": "doc",
  ".xls": "xls",
  ".xlsx": "xls",
  ".ppt": "ppt",
  ".pptx": "ppt",
};

const EXTENSIONS: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "audio/ogg": ".ogg",
  "audio/opus": ".opus",
  "video/mp4": ".mp4",
  "application/pdf": ".pdf",
};

function fileNameFor(attachment: Attachment, key: string, mime: string | undefined): string {
  if (attachment.name) return safeFileName(attachment.name);
  const type = mime?.split(";")[0]?.trim().toLowerCase() ?? "";
  const fallback = attachment.kind === "voice" ? ".opus" : "";
  return safeFileName(`${attachment.kind}-${key.slice(-16)}${EXTENSIONS[type] ?? fallback}`);
}

/** Opens `name` in `dir` for writing, adding -1, -2, ... before the extension when the name is taken. */
async function createUnique(dir: string, name: string): Promise<{ path: string; handle: Awaited<ReturnType<typeof open>> }> {
  const ext = extname(name);
  const base = name.slice(0, name.length - ext.length);
  for (let n = 0; n < 1000; n += 1) {
    const path = join(dir, n === 0 ? name : `${base}-${n}${ext}`);
    try {
      return { path, handle: await open(path, "wx", 0o600) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`Too many files named ${name} in ${dir}`);
}

function atMost(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new Error(`larger than ${maxBytes} bytes`) : null, chunk);
    },
  });
}
