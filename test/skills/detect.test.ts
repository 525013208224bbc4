import { createHook } from "node:async_hooks";
import { readFile, rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { detectSkillType } from "../../src/skills/detect.js";
import { SkillRegistry } from "../../src/skills/registry.js";
import { TempDirs, newEventBus, silentLog, writeSkill } from "./helpers.js";

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe("skill type detection", () => {
  const cases: Array<[string, string[], string | undefined]> = [
    ["SKILL.md only", ["SKILL.md"], undefined],
    ["docs and assets only", ["SKILL.md", "references/a.md", "assets/logo.png", "notes.py.txt"], undefined],
    ["skill.wasm first of the WASM names", ["main.wasm", "module.wasm", "skill.wasm", "wasm/skill.wasm"], "skill.wasm"],
    ["then wasm/skill.wasm", ["main.wasm", "module.wasm", "wasm/skill.wasm"], "wasm/skill.wasm"],
    ["then module.wasm", ["main.wasm", "module.wasm"], "module.wasm"],
    ["then main.wasm", ["a/other.wasm", "main.wasm"], "main.wasm"],
    ["then any .wasm, however deep", ["SKILL.md", "build/out/x.wasm"], "build/out/x.wasm"],
    ["WASM before a native script", ["main.py", "lib/any.wasm"], "lib/any.wasm"],
    ["script.py before main.py and index.py", ["index.py", "main.py", "script.py"], "script.py"],
    ["main.py before index.py", ["index.py", "main.py"], "main.py"],
    ["index.py", ["index.py"], "index.py"],
    [".py before .sh before .bash", ["main.bash", "main.sh", "script.sh"], "script.sh"],
    ["a .sh entry", ["index.sh"], "index.sh"],
    ["a .bash entry", ["main.bash"], "main.bash"],
    ["the top before src/", ["index.bash", "src/main.py"], "index.bash"],
    ["then src/script|main|index", ["scripts/z.py", "src/index.py", "src/main.sh"], "src/index.py"],
    ["then any script under scripts/", ["scripts/convert.js", "scripts/helper.py"], "scripts/convert.js"],
    ["a .mjs under scripts/", ["scripts/tool.mjs"], "scripts/tool.mjs"],
    ["a .bash under src/", ["src/deep/run.bash"], "src/deep/run.bash"],
    ["not a .js at the top (only under scripts/ or src/)", ["index.js", "tool.mjs"], undefined],
    ["not other script names at the top", ["run.py", "helper.sh"], undefined],
  ];

  it.each(cases)("%s", (_title, files, entry) => {
    const detected = detectSkillType([...files].sort());
    expect(detected).toEqual(entry === undefined ? { type: "instruction" } : { type: "executable", entry });
  });
});

/** Counts file-system requests (the async kinds) made while `fn` runs. */
async function countFsRequests(fn: () => Promise<void> | void): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type.startsWith("FSREQ") || type === "FILEHANDLE" || type === "STATWATCHER") count++;
    },
  });
  hook.enable();
  try {
    await fn();
  } finally {
    hook.disable();
  }
  return count;
}

describe("type cache", () => {
  it("answers type lookups with zero file-system calls, even after the folders are gone", async () => {
    const root = await temp.make();
    await writeSkill(root, "tool-skill", { files: { "scripts/run.py": "print(1)" } });
    await writeSkill(root, "doc-skill");
    const registry = new SkillRegistry([{ dir: root, origin: "user" }], silentLog, newEventBus());
    await registry.load();

    // The counter does see file-system calls.
    expect(await countFsRequests(async () => void (await readFile(`${root}/doc-skill/SKILL.md`)))).toBeGreaterThan(0);

    await rm(root, { recursive: true, force: true });
    const types: string[] = [];
    const count = await countFsRequests(async () => {
      for (let i = 0; i < 1000; i++) {
        types.push(registry.get("tool-skill")?.type ?? "missing", registry.get("doc-skill")?.type ?? "missing");
        await Promise.resolve();
      }
    });
    expect(count).toBe(0);
    expect(new Set(types)).toEqual(new Set(["executable", "instruction"]));
    expect(registry.get("tool-skill")?.entry).toBe("scripts/run.py");
  });
});
