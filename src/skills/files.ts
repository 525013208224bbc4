/**
 * Listing a folder's regular files: a skill folder once at load time (everything later works from that list),
 * and a run's work directory after the run (the files it created).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** Bounds that keep one odd folder (a checked-in virtualenv, say) from stalling a load. */
export const SCAN_LIMITS = { maxFiles: 2_000, maxDepth: 6 } as const;
const SKIPPED_DIRS = new Set(["node_modules", "__pycache__", ".git"]);

export interface FolderListing {
  /** Regular files, relative to the folder, with '/' separators, sorted. */
  files: string[];
  /** Symbolic links found and left out: nothing may point outside its folder. */
  symlinks: string[];
  /** True when a limit cut the listing short. */
  truncated: boolean;
}

export async function listFolderFiles(dir: string): Promise<FolderListing> {
  const result: FolderListing = { files: [], symlinks: [], truncated: false };
  await walk(dir, "", 0, result);
  result.files.sort();
  return result;
}

async function walk(dir: string, prefix: string, depth: number, out: FolderListing): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const rel = prefix + entry.name;
    if (out.files.length >= SCAN_LIMITS.maxFiles) {
      out.truncated = true;
      return;
    }
    if (entry.isSymbolicLink()) out.symlinks.push(rel);
    else if (entry.isFile()) out.files.push(rel);
    else if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) {
      if (depth + 1 >= SCAN_LIMITS.maxDepth) out.truncated = true;
      else await walk(join(dir, entry.name), `${rel}/`, depth + 1, out);
    }
  }
}
