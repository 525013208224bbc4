/**
 * What a file is, from its first bytes and its name: the MIME type sent with an upload, and whether it can go
 * as an image, a voice message or a video at all. The bytes win over the name, which the model or a user chose.
 */
import { extname } from "node:path";

export type MediaFamily = "image" | "audio" | "video";

/** How many leading bytes `sniff` needs. */
export const SNIFF_BYTES = 64;

interface Signature {
  mime: string;
  families: readonly MediaFamily[];
  matches(head: Buffer): boolean;
}

const ascii = (head: Buffer, at: number, text: string): boolean => head.toString("latin1", at, at + text.length) === text;

const SIGNATURES: readonly Signature[] = [
  { mime: "image/png", families: ["image"], matches: (h) => ascii(h, 0, "\x89PNG\r\n\x1a\n") },
  { mime: "image/jpeg", families: ["image"], matches: (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff },
  { mime: "image/gif", families: ["image"], matches: (h) => ascii(h, 0, "GIF87a") || ascii(h, 0, "GIF89a") },
  { mime: "image/webp", families: ["image"], matches: (h) => ascii(h, 0, "RIFF") && ascii(h, 8, "WEBP") },
  { mime: "audio/wav", families: ["audio"], matches: (h) => ascii(h, 0, "RIFF") && ascii(h, 8, "WAVE") },
  // An Ogg stream may carry Opus or Vorbis (audio) as well as Theora (video); voice is what chats send.
  { mime: "audio/ogg", families: ["audio"], matches: (h) => ascii(h, 0, "OggS") },
  { mime: "audio/flac", families: ["audio"], matches: (h) => ascii(h, 0, "fLaC") },
  { mime: "audio/mpeg", families: ["audio"], matches: (h) => ascii(h, 0, "ID3") || (h[0] === 0xff && ((h[1] ?? 0) & 0xe0) === 0xe0) },
  { mime: "video/webm", families: ["video", "audio"], matches: (h) => h.readUInt32BE(0) === 0x1a45dfa3 },
  { mime: "video/mp4", families: ["video", "audio"], matches: (h) => ascii(h, 4, "ftyp") },
];

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
export function sniff(head: Buffer, name: string): FileKind {
  const padded = head.length >= 12 ? head : Buffer.concat([head, Buffer.alloc(12 - head.length)]);
  const signature = SIGNATURES.find((s) => s.matches(padded));
  if (signature) return { mime: signature.mime, families: signature.families };
  return { mime: mimeFromName(name) ?? "application/octet-stream", families: [] };
}

export function mimeFromName(name: string): string | undefined {
  return BY_EXTENSION[extname(name).toLowerCase()];
}
