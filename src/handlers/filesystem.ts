/**
 * File tools confined to the session's workspace: read_file, write_file, list_directory.
 * Every path goes through resolveInWorkspace first; the final component is opened without following symlinks
 * so a link created after the check still cannot redirect a write.
 */
import { constants, createReadStream } from "node:fs";
import { mkdir, open, readdir, stat } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { z } from "zod";
import { implementTool, ToolError, type ToolHandlerSpec } from "../core/tools.js";
import { resolveInWorkspace, workspaceFileError } from "../infra/workspace.js";

export const READ_LIMIT_CHARS = 100_000;
export const WRITE_LIMIT_BYTES = 1024 * 1024;
const LIST_LIMIT_ENTRIES = 1000;
/** How much of a file is sniffed for NUL bytes to decide it is binary. */
const BINARY_SNIFF_BYTES = 8192;

const readFile = implementTool(
  {
    name: "read_file",
    category: "File System",
    shortDescription: "Read a text file from the workspace, in pages of up to 100k characters",
    description: [
      "Reads a UTF-8 text file from this conversation's workspace and returns its content.",
      "",
      "When to use: to look at a file you or the user saved earlier (notes, drafts, data, downloaded attachments).",
      "",
      "Caveats:",
      "- Paths are relative to the workspace; paths outside it are refused.",
      `- Returns at most ${READ_LIMIT_CHARS} characters per call. When \`hasMore\` is true, call again with`,
      "  `offset` set to the returned `nextOffset` to read the next page.",
      "- A binary file (image, archive...) is not returned; you get a note with its size instead.",
      "",
      'Example: read_file({"path": "notes/todo.md"}) or read_file({"path": "log.txt", "offset": 100000})',
    ].join("\n"),
    input: z.object({
      path: z.string().min(1).describe("File path relative to the workspace, e.g. notes/todo.md"),
      offset: z.number().int().min(0).default(0).describe("Character offset to start reading from"),
      limit: z
        .number()
        .int()
        .min(1)
        .max(READ_LIMIT_CHARS)
        .default(READ_LIMIT_CHARS)
        .describe(`Maximum characters to return (at most ${READ_LIMIT_CHARS})`),
    }),
    risk: "read",
    takesIn: (input, ctx) => (ctx.taint?.hasWritten(workspacePathKey(input.path)) ? undefined : "a file it did not write"),
  },
  (input, ctx) =>
    onPath(input.path, async () => {
      const path = await resolveInWorkspace(ctx.workspaceDir, input.path);
      const size = await fileSize(path, input.path);
      if (await looksBinary(path)) {
        return { path: input.path, binary: true, size, note: "This is a binary file; its bytes are not shown." };
      }
      const page = await readCharacters(path, input.offset, input.limit, ctx.signal);
      return { path: input.path, offset: input.offset, ...page };
    }),
);

/** One spelling per workspace path ("./a/../b.txt" is "b.txt"), to know a file read back is one the turn wrote. */
function workspacePathKey(path: string): string {
  return posix.normalize(path);
}

const writeFile = implementTool(
  {
    name: "write_file",
    category: "File System",
    shortDescription: "Create, overwrite or append to a text file in the workspace",
    description: [
      "Writes UTF-8 text to a file in this conversation's workspace, creating missing parent folders.",
      "",
      "When to use: to save notes, drafts, generated code or data the user asked for, or files you want to",
      "send later as an attachment.",
      "",
      "Caveats:",
      "- Overwrites an existing file unless `append` is true; read it first if you need to keep its content.",
      `- Content is limited to ${WRITE_LIMIT_BYTES} bytes (1 MiB) per call; write large files in appended parts.`,
      "- Paths are relative to the workspace; paths outside it (or through links pointing out) are refused.",
      "",
      'Example: write_file({"path": "notes/todo.md", "content": "- buy milk\\n", "append": true})',
    ].join("\n"),
    input: z.object({
      path: z.string().min(1).describe("File path relative to the workspace, e.g. notes/todo.md"),
      content: z
        .string()
        .refine((text) => Buffer.byteLength(text, "utf8") <= WRITE_LIMIT_BYTES, {
          message: `must be at most ${WRITE_LIMIT_BYTES} bytes of UTF-8 (1 MiB); write it in appended parts`,
        })
        .describe("The text to write"),
      append: z.boolean().default(false).describe("Add to the end of the file instead of replacing it"),
    }),
    risk: "workspace",
  },
  (input, ctx) =>
    onPath(input.path, async () => {
      const path = await resolveInWorkspace(ctx.workspaceDir, input.path);
      // The resolved path's missing parents lie below an existing folder already checked to be inside.
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const mode = input.append ? constants.O_APPEND : constants.O_TRUNC;
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | mode;
      const data = Buffer.from(input.content, "utf8");
      const file = await open(path, flags, 0o600);
      try {
        await file.writeFile(data);
      } finally {
        await file.close();
      }
      if (!input.append) ctx.taint?.wrote(workspacePathKey(input.path));
      return { path: input.path, bytesWritten: data.length, appended: input.append };
    }),
);

const listDirectory = implementTool(
  {
    name: "list_directory",
    category: "File System",
    shortDescription: "List the files and folders in a workspace directory",
    description: [
      "Lists the entries of a directory in this conversation's workspace: name, type and size of each file.",
      "",
      "When to use: to see which files exist before reading or sending one, or to check that a write worked.",
      "",
      "Caveats:",
      '- `path` is relative to the workspace; omit it (or use ".") for the workspace itself.',
      `- Returns at most ${LIST_LIMIT_ENTRIES} entries, sorted by name; \`truncated\` tells when there were more.`,
      "- Symbolic links are listed as type \"symlink\" and not followed.",
      "",
      'Example: list_directory({"path": "notes"})',
    ].join("\n"),
    input: z.object({
      path: z.string().min(1).default(".").describe('Directory relative to the workspace; "." is the workspace'),
    }),
    risk: "read",
  },
  (input, ctx) =>
    onPath(input.path, async () => {
      const path = await resolveInWorkspace(ctx.workspaceDir, input.path);
      const dirents = await readdir(path, { withFileTypes: true });
      dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = dirents.slice(0, LIST_LIMIT_ENTRIES);
      const entries = await Promise.all(
        shown.map(async (dirent) => {
          if (dirent.isDirectory()) return { name: dirent.name, type: "directory" };
          if (dirent.isSymbolicLink()) return { name: dirent.name, type: "symlink" };
          if (!dirent.isFile()) return { name: dirent.name, type: "other" };
          const { size } = await stat(join(path, dirent.name));
          return { name: dirent.name, type: "file", size };
        }),
      );
      return { path: input.path, entries, truncated: dirents.length > shown.length };
    }),
);

export function createFilesystemHandler(): ToolHandlerSpec {
  return { name: "filesystem", tools: [readFile, writeFile, listDirectory] };
}

async function fileSize(path: string, userPath: string): Promise<number> {
  const info = await stat(path);
  if (info.isDirectory()) throw new ToolError(`"${userPath}" is a directory; use list_directory to see it`);
  if (!info.isFile()) throw new ToolError(`"${userPath}" is not a regular file`);
  return info.size;
}

async function looksBinary(path: string): Promise<boolean> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(BINARY_SNIFF_BYTES), 0, BINARY_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await file.close();
  }
}

/**
 * Reads `limit` characters starting at character `offset`, decoding as a stream so that a page deep in a
 * large file costs no more memory than the page itself.
 */
async function readCharacters(
  path: string,
  offset: number,
  limit: number,
  signal: AbortSignal,
): Promise<{ content: string; hasMore: boolean; nextOffset?: number }> {
  const stream = createReadStream(path, { encoding: "utf8", signal });
  let skipped = 0;
  let content = "";
  let hasMore = false;
  for await (const chunk of stream as AsyncIterable<string>) {
    const start = Math.max(0, offset - skipped);
    skipped += Math.min(chunk.length, start);
    content += chunk.slice(start, start + limit + 1 - content.length);
    if (content.length > limit) {
      hasMore = true;
      break;
    }
  }
  content = content.slice(0, limit);
  // Never end a page inside a surrogate pair: the next page starts with the whole character.
  if (hasMore && /[\uD800-\uDBFF]$/.test(content)) content = content.slice(0, -1);
  return hasMore ? { content, hasMore, nextOffset: offset + content.length } : { content, hasMore };
}

/** A file tool's work on `userPath`: any filesystem error reaches the model naming that path, never the host's. */
function onPath<T>(userPath: string, work: () => Promise<T>): Promise<T> {
  return work().catch((err: unknown) => Promise.reject(workspaceFileError(err, userPath)));
}
