/**
 * Unpacking a skill archive (.zip, .tar.gz, .tgz) into an empty folder. Archives come from users: only regular
 * files and folders are written (no links, devices or paths outside the folder) and the unpacked size and the
 * number of entries are bounded. tar and yauzl are imported when an archive is unpacked, not when the gateway starts.
 */
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";

export const ARCHIVE_LIMITS = { maxBytes: 100 * 1_048_576, maxEntries: 5_000 } as const;

export type ArchiveKind = "zip" | "tar.gz";

export function archiveKind(path: string): ArchiveKind | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith(".zip")) return "zip";
  if (lower.endsWith(".tar.gz") || lower.endsWith(".tgz")) return "tar.gz";
  return undefined;
}

export async function unpackArchive(file: string, kind: ArchiveKind, into: string): Promise<void> {
  await (kind === "zip" ? unpackZip(file, into) : unpackTarGz(file, into));
}

class ArchiveBudget {
  private bytes = 0;
  private entries = 0;

  constructor(private readonly file: string) {}

  entry(): void {
    if (++this.entries > ARCHIVE_LIMITS.maxEntries) throw this.error(`more than ${ARCHIVE_LIMITS.maxEntries} entries`);
  }

  add(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > ARCHIVE_LIMITS.maxBytes) throw this.error(`more than ${ARCHIVE_LIMITS.maxBytes} bytes unpacked`);
  }

  private error(what: string): Error {
    return new Error(`archive ${this.file} is too large: ${what}`);
  }
}

// yauzl rejects absolute paths and '..' in entry names itself (strictFileNames also rejects backslashes).
async function unpackZip(file: string, into: string): Promise<void> {
  const budget = new ArchiveBudget(file);
  const { default: yauzl } = await import("yauzl");
  const zip = await yauzl.openPromise(file, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true });
  try {
    for await (const entry of zip.eachEntry()) {
      budget.entry();
      const target = join(into, entry.fileName);
      if (entry.fileName.endsWith("/")) {
        await mkdir(target, { recursive: true });
        continue;
      }
      const fileType = (entry.externalFileAttributes >>> 16) & 0o170000;
      if (fileType !== 0 && fileType !== 0o100000) throw new Error(`archive ${file}: ${entry.fileName} is not a regular file`);
      await mkdir(dirname(target), { recursive: true });
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done: TransformCallback) {
          try {
            budget.add(chunk.length);
            done(null, chunk);
          } catch (err) {
            done(err as Error);
          }
        },
      });
      await pipeline(await zip.openReadStreamPromise(entry), counter, createWriteStream(target, { flags: "wx" }));
    }
  } finally {
    zip.close();
  }
}

async function unpackTarGz(file: string, into: string): Promise<void> {
  const budget = new ArchiveBudget(file);
  let refused: Error | undefined;
  const { x: extractTar } = await import("tar");
  await extractTar({
    file,
    cwd: into,
    strict: true,
    // Without preservePaths, tar strips leading '/' and refuses entries with '..'.
    filter: (path, entry) => {
      if (refused) return false;
      const type = "type" in entry ? entry.type : undefined;
      try {
        budget.entry();
        if (type !== "File" && type !== "OldFile" && type !== "Directory") {
          throw new Error(`archive ${file}: ${path} is not a regular file or folder (${type ?? "unknown"})`);
        }
        budget.add("size" in entry ? entry.size : 0);
      } catch (err) {
        refused = err as Error;
        return false;
      }
      return true;
    },
  });
  if (refused) throw refused;
}
