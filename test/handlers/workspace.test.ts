import { mkdir, mkdtemp, realpath, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/tools.js";
import { resolveInWorkspace } from "../../src/infra/workspace.js";

let sandbox: string;
let workspace: string;

beforeEach(async () => {
  sandbox = await realpath(await mkdtemp(join(tmpdir(), "switchboard-ws-")));
  workspace = join(sandbox, "workspace");
  await mkdir(join(sandbox, "outside"));
});

afterEach(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

async function deniedFor(userPath: string): Promise<ToolError> {
  const err = await resolveInWorkspace(workspace, userPath).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ToolError)) throw new Error(`expected a ToolError for ${userPath}, got ${String(err)}`);
  expect(err.code).toBe("denied");
  return err;
}

describe("resolveInWorkspace", () => {
  it("creates the workspace with mode 0700 on first use", async () => {
    expect(await resolveInWorkspace(workspace, ".")).toBe(workspace);
    expect((await stat(workspace)).mode & 0o777).toBe(0o700);
  });

  it("resolves relative paths, inner `..`, and absolute paths inside the workspace", async () => {
    expect(await resolveInWorkspace(workspace, "notes/a.txt")).toBe(join(workspace, "notes/a.txt"));
    expect(await resolveInWorkspace(workspace, "notes/../b.txt")).toBe(join(workspace, "b.txt"));
    expect(await resolveInWorkspace(workspace, join(workspace, "c.txt"))).toBe(join(workspace, "c.txt"));
  });

  it("accepts a workspace reached through a symlinked folder", async () => {
    await symlink(sandbox, join(sandbox, "alias"));
    const viaAlias = join(sandbox, "alias", "workspace");
    expect(await resolveInWorkspace(viaAlias, "a.txt")).toBe(join(workspace, "a.txt"));
    expect(await resolveInWorkspace(viaAlias, join(viaAlias, "b.txt"))).toBe(join(workspace, "b.txt"));
  });

  it.each(["../x", "notes/../../x", "..", "/etc/passwd", "../workspace-evil/x"])("refuses %j", async (userPath) => {
    const err = await deniedFor(userPath);
    expect(err.message).toContain(`Path "${userPath}" is outside the workspace`);
  });

  it("refuses symlinks pointing out, at the file or at any parent, existing or not", async () => {
    await mkdir(workspace);
    await symlink("/etc", join(workspace, "etc"));
    await symlink(join(sandbox, "outside"), join(workspace, "out"));
    await symlink("/etc/passwd", join(workspace, "passwd"));
    for (const userPath of ["etc", "etc/passwd", "out/new.txt", "out/deep/new.txt", "passwd"]) {
      await deniedFor(userPath);
    }
  });

  it("refuses a dangling symlink, which a write would follow", async () => {
    await mkdir(workspace);
    await symlink(join(sandbox, "outside", "missing.txt"), join(workspace, "dangling"));
    const err = await deniedFor("dangling");
    expect(err.message).toContain("symbolic link whose target does not exist");
  });

  it("follows a symlink that stays inside to its real path", async () => {
    await mkdir(join(workspace, "real"), { recursive: true });
    await symlink(join(workspace, "real"), join(workspace, "link"));
    expect(await resolveInWorkspace(workspace, "link/a.txt")).toBe(join(workspace, "real", "a.txt"));
  });

  it("refuses a NUL byte", async () => {
    await deniedFor("a\0b");
  });
});
