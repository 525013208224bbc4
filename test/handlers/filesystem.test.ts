import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { ToolError } from "../../src/core/tools.js";
import { workspaceFileError } from "../../src/infra/workspace.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createFilesystemHandler,
  READ_LIMIT_CHARS,
  WRITE_LIMIT_BYTES,
} from "../../src/handlers/filesystem.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { ToolContext, ToolOutcome } from "../../src/core/tools.js";
import { makeToolContext } from "../helpers/tool-context.js";

let sandbox: string;
let outside: string;
let ctx: ToolContext;
let registry: HandlerRegistry;

beforeEach(async () => {
  sandbox = await realpath(await mkdtemp(join(tmpdir(), "switchboard-fs-")));
  outside = join(sandbox, "outside");
  await mkdir(outside);
  ctx = makeToolContext({ workspaceDir: join(sandbox, "workspace") });
  registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 10_000 });
  registry.register(createFilesystemHandler());
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

function call(tool: string, input: unknown): Promise<ToolOutcome> {
  return registry.executeByTool(tool, input, ctx);
}

async function output(tool: string, input: unknown): Promise<unknown> {
  const outcome = await call(tool, input);
  if (!outcome.ok) throw new Error(`${tool} failed: ${outcome.code}: ${outcome.error}`);
  return outcome.output;
}

async function failure(tool: string, input: unknown): Promise<{ code: string; error: string }> {
  const outcome = await call(tool, input);
  if (outcome.ok) throw new Error(`${tool} unexpectedly succeeded with ${JSON.stringify(outcome.output)}`);
  return { code: outcome.code, error: outcome.error };
}

describe("write_file, read_file, list_directory", () => {
  it("round-trips a file, creating the workspace and parent folders", async () => {
    expect(await output("write_file", { path: "notes/todo.md", content: "- milk\n" })).toEqual({
      path: "notes/todo.md",
      bytesWritten: 7,
      appended: false,
    });
    expect(await output("read_file", { path: "notes/todo.md" })).toEqual({
      path: "notes/todo.md",
      offset: 0,
      content: "- milk\n",
      hasMore: false,
    });
    await writeFile(join(ctx.workspaceDir, "b.txt"), "12345");
    expect(await output("list_directory", {})).toEqual({
      path: ".",
      entries: [
        { name: "b.txt", type: "file", size: 5 },
        { name: "notes", type: "directory" },
      ],
      truncated: false,
    });
  });

  it("appends, and overwrites when append is not set", async () => {
    await output("write_file", { path: "log.txt", content: "one\n" });
    await output("write_file", { path: "log.txt", content: "two\n", append: true });
    expect(await readFile(join(ctx.workspaceDir, "log.txt"), "utf8")).toBe("one\ntwo\n");
    await output("write_file", { path: "log.txt", content: "three\n" });
    expect(await readFile(join(ctx.workspaceDir, "log.txt"), "utf8")).toBe("three\n");
  });

  it("pages through a file by characters, multi-byte ones included", async () => {
    await output("write_file", { path: "text.txt", content: "héllo wörld 😀!" });
    expect(await output("read_file", { path: "text.txt", offset: 6, limit: 5 })).toEqual({
      path: "text.txt",
      offset: 6,
      content: "wörld",
      hasMore: true,
      nextOffset: 11,
    });
    // The emoji is a surrogate pair: a page never splits it.
    expect(await output("read_file", { path: "text.txt", offset: 11, limit: 2 })).toMatchObject({
      content: " ",
      nextOffset: 12,
    });
    const lastPage = await output("read_file", { path: "text.txt", offset: 12 });
    expect(lastPage).toMatchObject({ content: "😀!", hasMore: false });
    expect(await output("read_file", { path: "text.txt", offset: 100 })).toMatchObject({ content: "", hasMore: false });
  });

  it("returns at most the read limit of a large file", async () => {
    await writeFile(join(await mkdirWorkspace(), "big.txt"), "a".repeat(READ_LIMIT_CHARS + 10));
    const page = (await output("read_file", { path: "big.txt" })) as { content: string; nextOffset: number };
    expect(page.content.length).toBe(READ_LIMIT_CHARS);
    expect(page.nextOffset).toBe(READ_LIMIT_CHARS);
    expect((await failure("read_file", { path: "big.txt", limit: READ_LIMIT_CHARS + 1 })).code).toBe("invalid_input");
  });

  it("returns a note instead of the bytes of a binary file", async () => {
    await writeFile(join(await mkdirWorkspace(), "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    expect(await output("read_file", { path: "image.png" })).toEqual({
      path: "image.png",
      binary: true,
      size: 8,
      note: "This is a binary file; its bytes are not shown.",
    });
  });

  it("lists symlinks without following them", async () => {
    await symlink("/etc", join(await mkdirWorkspace(), "etc"));
    const listing = await output("list_directory", { path: "." });
    expect(listing).toMatchObject({ entries: [{ name: "etc", type: "symlink" }] });
  });
});

describe("refusals", () => {
  it("refuses `..` traversal and absolute paths outside, writing nothing", async () => {
    for (const path of ["../outside/x.txt", join(outside, "x.txt"), "/etc/passwd"]) {
      const { code, error } = await failure("write_file", { path, content: "pwned" });
      expect(code).toBe("denied");
      expect(error).toContain("is outside the workspace");
    }
    expect((await failure("read_file", { path: "/etc/passwd" })).code).toBe("denied");
    expect((await failure("list_directory", { path: "../" })).code).toBe("denied");
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses a symlink inside the workspace that points to /etc", async () => {
    await symlink("/etc", join(await mkdirWorkspace(), "etc"));
    expect((await failure("read_file", { path: "etc/passwd" })).code).toBe("denied");
    expect((await failure("list_directory", { path: "etc" })).code).toBe("denied");
    expect((await failure("write_file", { path: "etc/new.conf", content: "x" })).code).toBe("denied");
  });

  it("refuses writes through a symlinked parent directory pointing out, existing file or new", async () => {
    const workspace = await mkdirWorkspace();
    await writeFile(join(outside, "keep.txt"), "original");
    await symlink(outside, join(workspace, "out"));
    expect((await failure("write_file", { path: "out/keep.txt", content: "pwned" })).code).toBe("denied");
    expect((await failure("write_file", { path: "out/new/deep.txt", content: "pwned" })).code).toBe("denied");
    expect((await failure("write_file", { path: "out/keep.txt", content: "x", append: true })).code).toBe("denied");
    expect(await readdir(outside)).toEqual(["keep.txt"]);
    expect(await readFile(join(outside, "keep.txt"), "utf8")).toBe("original");
  });

  it("refuses content over 1 MiB with a clear error and writes nothing", async () => {
    // "é" is two bytes: fewer characters than the limit, more bytes.
    const content = "é".repeat(WRITE_LIMIT_BYTES / 2 + 1);
    const { code, error } = await failure("write_file", { path: "big.txt", content });
    expect(code).toBe("invalid_input");
    expect(error).toMatch(/- content: must be at most 1048576 bytes/);
    expect(await readdir(sandbox)).toEqual(["outside"]);
  });

  it("explains missing files, directories read as files and files used as folders", async () => {
    expect(await failure("read_file", { path: "nope.txt" })).toEqual({
      code: "failed",
      error: '"nope.txt" does not exist; list_directory shows what does',
    });
    await output("write_file", { path: "notes/a.txt", content: "a" });
    expect((await failure("read_file", { path: "notes" })).error).toContain("is a directory; use list_directory");
    const overDirectory = await failure("write_file", { path: "notes", content: "x" });
    expect(overDirectory.error).toContain("is a directory, not a file");
    expect((await failure("write_file", { path: "notes/a.txt/b.txt", content: "x" })).error).toContain("is a file");
    expect((await failure("list_directory", { path: "notes/a.txt" })).error).toContain("is a file");
  });

  it("names paths as the model gave them, never the host's: a 300-character name, a folder it may not enter", async () => {
    const long = "A".repeat(300);
    const failures = [
      await failure("write_file", { path: long, content: "x" }),
      await failure("write_file", { path: `notes/${long}/x.txt`, content: "x" }),
      await failure("read_file", { path: long }),
      await failure("list_directory", { path: long }),
    ];
    for (const { code, error } of failures) {
      expect(code).toBe("failed");
      expect(error).toMatch(/is too long: a file or folder name may have at most 255 bytes$/);
      expect(error).not.toContain(sandbox);
    }
    // An error the model cannot act on (permissions, a disk) names the workspace path and the code; the host's
    // path stays in the cause, for the log.
    const host = Object.assign(new Error(`EIO: i/o error, read '${sandbox}/workspace/a.txt'`), { code: "EIO" });
    const unexpected = workspaceFileError(host, "a.txt");
    expect(unexpected).not.toBeInstanceOf(ToolError);
    expect(unexpected.message).toBe('the workspace file "a.txt" could not be used (EIO)');
    expect(unexpected.cause).toBe(host);
  });

  it("rejects missing or mistyped fields", async () => {
    expect((await failure("write_file", { path: "a.txt" })).error).toMatch(/- content: /);
    expect((await failure("read_file", { path: "" })).error).toMatch(/- path: /);
    expect((await failure("read_file", { path: "a.txt", offset: -1 })).error).toMatch(/- offset: /);
  });
});

async function mkdirWorkspace(): Promise<string> {
  await mkdir(ctx.workspaceDir, { recursive: true });
  return ctx.workspaceDir;
}
