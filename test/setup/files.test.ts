import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGLISH } from "../../src/infra/i18n/index.js";
import { readSetupFiles, writeSetupFiles } from "../../src/setup/files.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-setup-files-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the set-up's files", () => {
  it("a .env others could read is replaced by one only its owner can, never rewritten in place", async () => {
    const envPath = join(dir, ".env");
    await writeFile(envPath, "OLD=1\n", { mode: 0o644 });
    await chmod(envPath, 0o644);
    const before = await stat(envPath);
    await writeSetupFiles(readSetupFiles(join(dir, "switchboard.yaml"), ENGLISH.t), [], { LLM_API_KEY: "sk-new" });
    const after = await stat(envPath);
    expect(after.mode & 0o777).toBe(0o600);
    // A new file renamed over the old one: the secret never sat in the readable one.
    expect(after.ino).not.toBe(before.ino);
    expect(await readFile(envPath, "utf8")).toContain("LLM_API_KEY=sk-new");
    expect(await readdir(dir)).toEqual([".env", "switchboard.yaml"]);
  });

  it("the configuration keeps its mode, and a linked one stays a link with its target edited", async () => {
    const real = join(dir, "real.yaml");
    await writeFile(real, "# mine\nllm:\n  model: old\n");
    await chmod(real, 0o640);
    const configPath = join(dir, "switchboard.yaml");
    await symlink(real, configPath);
    await writeSetupFiles(readSetupFiles(configPath, ENGLISH.t), [[["llm", "model"], "new"]], {});
    expect((await lstat(configPath)).isSymbolicLink()).toBe(true);
    expect((await stat(real)).mode & 0o777).toBe(0o640);
    expect(await readFile(real, "utf8")).toBe("# mine\nllm:\n  model: new\n");
  });
});
