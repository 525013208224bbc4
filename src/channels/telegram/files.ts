/**
 * Downloading what users send: getFile, then the bytes from `{apiRoot}/file/bot{token}/{file_path}`, or, from a
 * local Bot API server (--local), straight from the absolute path it answers. The size is checked against the
 * limit before and while downloading, so a large file is refused with a message a person understands.
 */
import { createWriteStream } from "node:fs";
import { copyFile, mkdir, rename, rm, stat } from "node:fs/promises";
import { basename, isAbsolute, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GrammyError, type Api } from "grammy";
import { safeFileName } from "../../core/file-names.js";
import type { Speech } from "../../core/i18n.js";
import type { Attachment } from "../../core/types.js";
import { describeTelegramError } from "./api.js";

export interface DownloadSource {
  api: Api;
  token: string;
  apiRoot: string;
  maxBytes: number;
}

const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

export class FileTooLargeError extends Error {
  constructor(label: string, size: number, maxBytes: number) {
    super(`${label} is ${formatMb(size)}; a Telegram bot can download at most ${formatMb(maxBytes)}`);
    this.name = "FileTooLargeError";
  }
}

export async function downloadAttachment(source: DownloadSource, attachment: Attachment, into: string): Promise<string> {
  const label = attachment.name !== undefined ? `The ${attachment.kind} "${attachment.name}"` : `The ${attachment.kind}`;
  if (attachment.size !== undefined && attachment.size > source.maxBytes) throw new FileTooLargeError(label, attachment.size, source.maxBytes);
  const file = await source.api.getFile(attachment.ref).catch((err: unknown) => {
    // Telegram answers 400 "file is too big" for anything over 20 MB.
    if (err instanceof GrammyError && /too big/i.test(err.description)) throw new FileTooLargeError(label, attachment.size ?? source.maxBytes + 1, source.maxBytes);
    throw new Error(`Telegram getFile for ${label.toLowerCase()} failed: ${describeTelegramError(err)}`, { cause: err });
  });
  if (file.file_size !== undefined && file.file_size > source.maxBytes) throw new FileTooLargeError(label, file.file_size, source.maxBytes);
  if (!file.file_path) throw new Error(`Telegram gave no download path for ${label.toLowerCase()}`);

  await mkdir(into, { recursive: true, mode: 0o700 });
  const target = join(into, `${file.file_unique_id}-${safeFileName(attachment.name ?? basename(file.file_path))}`);
  const partial = `${target}.part`;
  try {
    if (isAbsolute(file.file_path)) await copyLocal(file.file_path, partial, label, source.maxBytes);
    else await fetchInto(`${source.apiRoot}/file/bot${source.token}/${encodeURI(file.file_path)}`, partial, label, source.maxBytes);
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return target;
}

async function copyLocal(path: string, into: string, label: string, maxBytes: number): Promise<void> {
  const { size } = await stat(path).catch(() => {
    throw new Error(`${label} is on the Bot API server's disk (${path}), which this machine cannot read`);
  });
  if (size > maxBytes) throw new FileTooLargeError(label, size, maxBytes);
  await copyFile(path, into);
}

async function fetchInto(url: string, into: string, label: string, maxBytes: number): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch((err: unknown) => {
    // The URL holds the token: only the cause's code goes into the message.
    const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    throw new Error(`Downloading ${label.toLowerCase()} from Telegram failed (${code})`);
  });
  if (!response.ok || !response.body) throw new Error(`Downloading ${label.toLowerCase()} from Telegram failed: HTTP ${response.status}`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw new FileTooLargeError(label, declared, maxBytes);
  await pipeline(Readable.fromWeb(response.body), byteLimit(label, maxBytes), createWriteStream(into));
}

/** Fails the stream once more than `maxBytes` went through: a server may send more than it declared. */
function byteLimit(label: string, maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new FileTooLargeError(label, seen, maxBytes) : null, chunk);
    },
  });
}

/** The attachments too large for a bot to download. */
export function tooLarge(attachments: readonly Attachment[], maxBytes: number): Attachment[] {
  return attachments.filter((a) => a.size !== undefined && a.size > maxBytes);
}

/** What the sender hears about the attachments `tooLarge` found, in their language. */
export function tooLargeNotice(large: readonly Attachment[], maxBytes: number, speech: Speech): string {
  const names = large.map((a) => `${a.name ?? speech.t("channels.unnamedFile", { kind: a.kind })} (${formatMb(a.size ?? 0)})`).join(", ");
  return speech.t("channels.telegramTooLarge", { names, max: formatMb(maxBytes) });
}

function formatMb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
