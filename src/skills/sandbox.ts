/**
 * The files a skill script run leaves in its work directory (the sandbox engine creates and removes that
 * directory, src/sandbox), and copying them into the session workspace.
 */
import { copyFile, mkdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { listFolderFiles } from "./files.js";

export interface CreatedFile {
  /** Relative to the work directory. */
  path: string;
  bytes: number;
}

export interface CreatedFiles {
  files: CreatedFile[];
  /** More files than the listing limit. */
  truncated: boolean;
}

/** Regular files only: a symlink the script left behind could point anywhere and is never reported or copied. */
export async function collectCreatedFiles(workDir: string): Promise<CreatedFiles> {
  const listing = await listFolderFiles(workDir);
  const files = await Promise.all(
    listing.files.map(async (path) => ({ path, bytes: (await stat(join(workDir, path))).size })),
  );
  return { files, truncated: listing.truncated };
}

export interface Delivery {
  delivered: Array<{ from: string; to: string }>;
  skipped: Array<{ path: string; reason: string }>;
}

/**
 * Copies the created files to where `target(path)` says (resolved and confined by the caller), keeping their
 * relative paths, replacing files of the same name. Files over `maxBytes` are skipped.
 */
export async function deliverFiles(
  workDir: string,
  files: readonly CreatedFile[],
  target: (path: string) => Promise<string>,
  maxBytes: number,
): Promise<Delivery> {
  const result: Delivery = { delivered: [], skipped: [] };
  for (const file of files) {
    if (file.bytes > maxBytes) {
      result.skipped.push({ path: file.path, reason: `larger than ${maxBytes} bytes` });
      continue;
    }
    try {
      const to = await target(file.path);
      await mkdir(dirname(to), { recursive: true });
      await copyFile(join(workDir, file.path), to);
      result.delivered.push({ from: file.path, to });
    } catch (err) {
      result.skipped.push({ path: file.path, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}
