/**
 * Checking one artifact before it is sent: the path must stay inside the session's workspace (after `..` and
 * symlinks), name a regular file within the channel's size limit, and hold what its type says. A file that
 * passes is copied to a private staging folder while it is hashed, so the bytes uploaded are exactly the bytes
 * hashed, whatever happens to the workspace meanwhile.
 */
import { createHash } from "node:crypto";
import { constants, createWriteStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { basename, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { safeFileName } from "../core/file-names.js";
import { ToolError } from "../core/tools.js";
import { isErrno, resolveInWorkspace } from "../infra/workspace.js";
import { sniff, SNIFF_BYTES, type FileKind, type MediaFamily } from "./file-kinds.js";
import type { ArtifactType, ReceiptErrorCode } from "./receipts.js";

export interface ArtifactRequest {
  type: ArtifactType;
  path: string;
  caption?: string | undefined;
  name?: string | undefined;
  mime?: string | undefined;
  dedupe_key?: string | undefined;
}

export interface StagedArtifact {
  /** The copy that is uploaded. */
  stagedPath: string;
  name: string;
  size: number;
  sha256: string;
  mime: string;
  kind: FileKind;
}

export type StagingResult =
  | { ok: true; artifact: StagedArtifact }
  | { ok: false; code: ReceiptErrorCode; error: string; name: string; size: number | null };

export interface StagingOptions {
  workspaceDir: string;
  /** The channel's upload limit. */
  maxBytes: number;
  /** A private folder the copy goes into; its files are named by `index`, so they never collide. */
  stagingDir: string;
  index: number;
}

/** What each type needs the bytes to be; a file goes as anything. */
const REQUIRED_FAMILY: Record<ArtifactType, MediaFamily | undefined> = {
  file: undefined,
  image: "image",
  voice: "audio",
  video: "video",
};

export async function stageArtifact(request: ArtifactRequest, opts: StagingOptions): Promise<StagingResult> {
  const name = safeFileName(request.name ?? basename(request.path));
  const refuse = (code: ReceiptErrorCode, error: string, size: number | null = null): StagingResult => ({ ok: false, code, error, name, size });

  let real: string;
  try {
    real = await resolveInWorkspace(opts.workspaceDir, request.path);
  } catch (err) {
    if (err instanceof ToolError) return refuse("outside_workspace", err.message);
    throw err;
  }
  let file: FileHandle;
  try {
    // O_NOFOLLOW: a symlink put in place after the check is refused, not followed out of the workspace.
    file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return refuse("not_found", `"${request.path}" does not exist in the workspace`);
    if (isErrno(err, "ELOOP")) return refuse("outside_workspace", `"${request.path}" is a symbolic link; links are not followed`);
    throw err;
  }
  try {
    const info = await file.stat();
    if (!info.isFile()) return refuse("unsupported_type", `"${request.path}" is not a regular file`);
    if (info.size > opts.maxBytes) {
      return refuse("too_large", `${name} has ${info.size} bytes; this chat accepts files up to ${opts.maxBytes} bytes`, info.size);
    }
    if (info.size === 0) return refuse("unsupported_type", `${name} is empty`, 0);
    const { buffer, bytesRead } = await file.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    const kind = await sniff(buffer.subarray(0, bytesRead), name);
    const family = REQUIRED_FAMILY[request.type];
    if (family !== undefined && !kind.families.includes(family)) {
      return refuse("unsupported_type", `${name} does not look like ${describeFamily(family)} (${kind.mime}); send it with type "file"`, info.size);
    }
    const stagedPath = join(opts.stagingDir, `${opts.index}-${name}`);
    const sha256 = await copyHashing(file, stagedPath);
    return { ok: true, artifact: { stagedPath, name, size: info.size, sha256, mime: request.mime ?? kind.mime, kind } };
  } finally {
    await file.close();
  }
}

function describeFamily(family: MediaFamily): string {
  return family === "image" ? "an image (PNG, JPEG, GIF or WebP)" : family === "audio" ? "audio" : "a video";
}

async function copyHashing(source: FileHandle, target: string): Promise<string> {
  const hash = createHash("sha256");
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(source.createReadStream({ start: 0, autoClose: false }), tap, createWriteStream(target, { mode: 0o600 }));
  return hash.digest("hex");
}
