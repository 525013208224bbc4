/**
 * Discord attachments: what kind each one is, and downloading one on demand. The attachment's CDN URL is its
 * ref; downloads go only to Discord's CDN or to the configured API host, never to a URL from elsewhere.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Attachment, AttachmentKind } from "../../core/types.js";
import { safeFileName } from "../../core/file-names.js";
import type { DiscordAttachment } from "./payload.js";

const CDN_HOSTS = new Set(["cdn.discordapp.com", "media.discordapp.net"]);
const DOWNLOAD_TIMEOUT_MS = 60_000;

const EXTENSION_KINDS: Array<[RegExp, AttachmentKind]> = [
  [/\.(png|jpe?g|gif|webp|bmp|heic|avif)$/i, "image"],
  [/\.(mp3|ogg|oga|opus|wav|m4a|flac|aac)$/i, "audio"],
  [/\.(mp4|mov|webm|mkv|avi)$/i, "video"],
];

export function toAttachment(raw: DiscordAttachment, voiceMessage: boolean): Attachment {
  return {
    kind: voiceMessage ? "voice" : kindOf(raw),
    ref: raw.url,
    name: raw.filename,
    size: raw.size,
    ...(raw.content_type !== undefined ? { mime: raw.content_type } : {}),
    ...(raw.duration_secs !== undefined ? { durationSec: Math.round(raw.duration_secs) } : {}),
  };
}

function kindOf(raw: DiscordAttachment): AttachmentKind {
  const major = raw.content_type?.split("/")[0];
  if (major === "image" || major === "audio" || major === "video") return major;
  return EXTENSION_KINDS.find(([pattern]) => pattern.test(raw.filename))?.[1] ?? "file";
}

export interface DownloadOptions {
  /** The REST base: its host serves attachments too when it is not Discord (a proxy, a test server). */
  apiUrl: string;
  maxBytes: number;
}

/** Downloads into `into` under a name unique to the attachment; returns the path. */
export async function downloadAttachment(attachment: Attachment, into: string, opts: DownloadOptions): Promise<string> {
  const url = allowedUrl(attachment.ref, opts.apiUrl);
  const label = `Discord attachment ${attachment.name ?? url.pathname}`;
  if (attachment.size !== undefined && attachment.size > opts.maxBytes) throw tooLarge(label, opts.maxBytes);

  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok || !response.body) {
    const hint = response.status === 403 || response.status === 404 ? " (the link expired or the message was deleted)" : "";
    throw new Error(`${label}: download failed with HTTP ${response.status}${hint}`);
  }
  await mkdir(into, { recursive: true, mode: 0o700 });
  const digest = createHash("sha256").update(attachment.ref).digest("hex").slice(0, 12);
  const path = join(into, `${digest}-${safeFileName(attachment.name ?? "attachment")}`);
  const partial = `${path}.part`;
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), byteLimit(label, opts.maxBytes), createWriteStream(partial));
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return path;
}

function allowedUrl(ref: string, apiUrl: string): URL {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new Error(`Not a Discord attachment URL: ${JSON.stringify(ref.slice(0, 100))}`);
  }
  const cdn = url.protocol === "https:" && CDN_HOSTS.has(url.hostname);
  if (!cdn && url.origin !== new URL(apiUrl).origin) throw new Error(`Refusing to download from ${url.origin}: not Discord's CDN`);
  return url;
}

function byteLimit(label: string, maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge(label, maxBytes) : null, chunk);
    },
  });
}

function tooLarge(label: string, maxBytes: number): Error {
  return new Error(`${label} is larger than ${mib(maxBytes)}, the download limit (channels.discord.maxDownloadMB)`);
}

export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
