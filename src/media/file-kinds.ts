/**
 * What a file is, from its first bytes and its name: the MIME type sent with an upload, and whether it can go
 * as an image, a voice message or a video at all. The bytes (read by file-type) win over the name, which the
 * model or a user chose.
 */
import { extname } from "node:path";

export type MediaFamily = "image" | "audio" | "video";

/** How many leading bytes `sniff` needs: file-type's "reasonable detection size". */
export const SNIFF_BYTES = 4100;

/**
 * The formats chats show as images, play as audio (voice) or as video; every other type goes as a document.
 * MP4 and WebM may carry sound alone. An Ogg stream file-type reads as Theora is video/ogg, so not voice.
 */
const FAMILIES: Record<string, readonly MediaFamily[]> = {
  "image/png": ["image"],
  "image/jpeg": ["image"],
  "image/gif": ["image"],
  "image/webp": ["image"],
  "audio/wav": ["audio"],
  "audio/ogg": ["audio"],
  "audio/flac": ["audio"],
  "audio/mpeg": ["audio"],
  "audio/mp4": ["audio"],
  "audio/x-m4a": ["audio"],
  "video/webm": ["video", "audio"],
  "video/mp4": ["video", "audio"],
  "video/quicktime": ["video", "audio"],
};

const BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/ogg",
  ".mp3": "audio/mpeg",
  ".m4a": "audio/mp4",
  ".wav": "audio/wav",
  ".flac": "audio/flac",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".html": "text/html",
  ".zip": "application/zip",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

export interface FileKind {
  mime: string;
  /** The media families the bytes belong to; empty for documents and anything unrecognized. */
  families: readonly MediaFamily[];
}

/** The kind of a file from its first bytes (at least SNIFF_BYTES when the file has them) and its name. */
export async function sniff(head: Uint8Array, name: string): Promise<FileKind> {
  // Imported on first use, to keep it off the start-up path of every command.
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = await fileTypeFromBuffer(head);
  // Parameters such as "; codecs=opus" are dropped: uploads and extension tables want the bare type.
  const mime = detected?.mime.split(";")[0]!.trim();
  if (mime !== undefined) return { mime, families: FAMILIES[mime] ?? [] };
  return { mime: mimeFromName(name) ?? "application/octet-stream", families: [] };
}

export function mimeFromName(name: string): string | undefined {
  return BY_EXTENSION[extname(name).toLowerCase()];
}
