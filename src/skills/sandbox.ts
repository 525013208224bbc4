/**
 * The per-run directory of a script. The skill folder is copied (symlinks left out) and the script runs from
 * the copy with a fresh, empty work directory as cwd and HOME. The copy is what keeps the installed skill
 * unchanged: permissions cannot, since the gateway often runs as root, and the script is never told where the
 * original folder is (argv, cwd and environment all point into the run directory). Whatever the work directory
 * holds afterwards is what the run created. The run directory is removed when the run is over.
 */
import { copyFile, cp, lstat, mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { listFolderFiles } from "./files.js";

export interface RunDirectory {
  /** The private copy of the skill folder. */
  skillDir: string;
  /** cwd and HOME of the script; empty when the run starts. */
  workDir: string;
  tmpDir: string;
  dispose(): Promise<void>;
}

export async function createRunDirectory(skillDir: string): Promise<RunDirectory> {
  const root = await mkdtemp(join(tmpdir(), "switchboard-skill-run-"));
  const dispose = () => rm(root, { recursive: true, force: true });
  const dirs = { skillDir: join(root, "skill"), workDir: join(root, "work"), tmpDir: join(root, "tmp") };
  try {
    await cp(skillDir, dirs.skillDir, {
      recursive: true,
      filter: async (source) => !(await lstat(source)).isSymbolicLink(),
    });
    await mkdir(dirs.workDir);
    await mkdir(dirs.tmpDir);
  } catch (err) {
    await dispose();
    throw err;
  }
  return { ...dirs, dispose };
}

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
