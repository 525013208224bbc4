/**
 * The kit's download of a user's file over HTTP: the size is checked against the limit before (the declared
 * length) and while the bytes arrive (a server may send more than it declared), into a `.part` file renamed
 * only when complete, so a failed download leaves nothing behind that looks finished.
 */
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

export class FileTooLargeError extends Error {
  override name = "FileTooLargeError";
  constructor(label: string, size: number, maxBytes: number) {
    super(`${label} is ${mb(size)}; the bot downloads at most ${mb(maxBytes)}`);
  }
}

/** Fetches `url` into `target`; `label` names the file in errors ("the image from WhatsApp"). Never logs headers. */
export async function downloadInto(url: string, init: RequestInit, target: string, label: string, maxBytes: number): Promise<string> {
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const partial = `${target}.part`;
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }).catch((err: unknown) => {
      const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new Error(`downloading ${label} failed (${code})`);
    });
    if (!response.ok || !response.body) throw new Error(`downloading ${label} failed: HTTP ${response.status}`);
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > maxBytes) throw new FileTooLargeError(label, declared, maxBytes);
    let seen = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        done(seen > maxBytes ? new FileTooLargeError(label, seen, maxBytes) : null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body), limit, createWriteStream(partial));
    await rename(partial, target);
    return target;
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
