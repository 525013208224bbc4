/**
 * Path confinement for tools that touch files: every user-supplied path must stay inside the session's
 * workspace, after `..` and after every symlink on the way, whether the file exists yet or not.
 *
 * A session's workspace is made when something first needs it, not when its first turn starts: whoever uses one
 * (the file tools here, downloads, a sandboxed run) creates what is missing, with mode 0700. A chat that never
 * touches a file leaves no folder behind, and a turn costs no mkdir.
 */
import { chmod, lstat, mkdir, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { workspaceDirOf } from "../core/session-key.js";
import { ToolError } from "../core/tools.js";

/** The one place that knows where sessions' workspaces live: `<dataDir>/workspaces/<session>`. */
export class Workspaces {
  private constructor(readonly root: string) {}

  /** Where the workspaces of a gateway on this data dir live, without touching the disk (doctor, the CLI). */
  static rootOf(dataDir: string): string {
    return join(dataDir, "workspaces");
  }

  /**
   * Makes the root at start, passable by others (0711): when the gateway runs as root, the sandbox user must
   * reach its workspace below it, and whichever tool first makes a workspace would otherwise make this folder
   * private too (a recursive mkdir gives every folder it creates the same mode).
   */
  static async prepare(dataDir: string): Promise<Workspaces> {
    const root = Workspaces.rootOf(dataDir);
    await mkdir(root, { recursive: true, mode: 0o711 });
    // Set explicitly: mkdir's mode is cut by the umask, and a folder an earlier version made private stays so.
    // Not ours to change (another owner): `doctor` says whether the sandbox user can pass.
    await chmod(root, 0o711).catch((err: unknown) => {
      if (!isErrno(err, "EPERM")) throw err;
    });
    return new Workspaces(root);
  }

  /** The session's workspace; made by whoever first needs it. */
  dirOf(sessionKey: string): string {
    return workspaceDirOf(this.root, sessionKey);
  }
}

/**
 * Resolves `userPath` (relative to the workspace, or absolute inside it) to a real absolute path inside the
 * workspace, creating the workspace (mode 0700) when it does not exist yet. Throws ToolError "denied" for any
 * path that leaves it: `..` traversal, an absolute path elsewhere, or a symlink pointing out.
 */
export async function resolveInWorkspace(workspaceDir: string, userPath: string): Promise<string> {
  if (userPath.includes("\0")) throw new ToolError(`Path ${JSON.stringify(userPath)} contains a NUL byte`, "denied");
  try {
    await mkdir(workspaceDir, { recursive: true, mode: 0o700 });
    const root = await realpath(workspaceDir);
    const inside = relativeInside(userPath, [resolve(workspaceDir), root]);
    if (inside === undefined) throw outsideError(userPath);

    const { existing, missing } = await splitAtNearestExisting(root, inside);
    const real = await realExisting(existing, userPath);
    if (!isWithin(root, real)) throw outsideError(userPath);
    return join(real, ...missing);
  } catch (err) {
    throw workspaceFileError(err, userPath);
  }
}

/** What the model reads for a filesystem error on its path, by errno code: it names the path as the model gave it. */
const ON_PATH: Record<string, (userPath: string) => string> = {
  ENOENT: (p) => `"${p}" does not exist; list_directory shows what does`,
  EISDIR: (p) => `"${p}" is a directory, not a file`,
  ENOTDIR: (p) => `A part of "${p}" is a file, not a directory`,
  // From mkdir of a parent folder that already exists as a file.
  EEXIST: (p) => `A part of "${p}" is a file, not a directory`,
  ENAMETOOLONG: (p) => `"${p.length > 80 ? `${p.slice(0, 80)}…` : p}" is too long: a file or folder name may have at most 255 bytes`,
};

/**
 * A filesystem error on a workspace path as a tool reports it, never naming the host's path (the data dir's
 * location is the operator's business): a ToolError the model can act on, or, for what it cannot (permissions, a
 * full disk), an error naming the workspace path and the errno code, whose cause keeps the rest for the log.
 */
export function workspaceFileError(err: unknown, userPath: string): Error {
  if (err instanceof ToolError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === "ELOOP") return new ToolError(`"${userPath}" is a symbolic link; links are not followed`, "denied");
  const message = code === undefined ? undefined : ON_PATH[code];
  if (message) return new ToolError(message(userPath));
  return new Error(`the workspace file "${userPath}" could not be used${code === undefined ? "" : ` (${code})`}`, { cause: err });
}

/** The path relative to whichever of `roots` contains it lexically, or undefined when none does. */
function relativeInside(userPath: string, roots: string[]): string | undefined {
  for (const root of roots) {
    const target = isAbsolute(userPath) ? resolve(userPath) : resolve(root, userPath);
    if (isWithin(root, target)) return relative(root, target);
  }
  return undefined;
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Walks `relativePath` below `root` and splits it into the longest prefix that exists (a file, directory or
 * symlink, even a dangling one) and the components after it, which do not exist and so cannot be symlinks.
 */
async function splitAtNearestExisting(
  root: string,
  relativePath: string,
): Promise<{ existing: string; missing: string[] }> {
  const parts = relativePath.split(sep).filter((part) => part !== "");
  let existing = root;
  for (let i = 0; i < parts.length; i++) {
    const next = join(existing, parts[i] as string);
    if (!(await exists(next))) return { existing, missing: parts.slice(i) };
    existing = next;
  }
  return { existing, missing: [] };
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return false;
    throw err;
  }
}

/** realpath of an entry known to exist; a dangling symlink is refused since writing through it would escape. */
async function realExisting(path: string, userPath: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (err) {
    if (isErrno(err, "ENOENT") || isErrno(err, "ELOOP")) {
      throw new ToolError(`Path "${userPath}" goes through a symbolic link whose target does not exist`, "denied");
    }
    throw err;
  }
}

function outsideError(userPath: string): ToolError {
  return new ToolError(
    `Path "${userPath}" is outside the workspace. Use a path relative to the workspace, e.g. "notes/todo.txt".`,
    "denied",
  );
}

export function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}
