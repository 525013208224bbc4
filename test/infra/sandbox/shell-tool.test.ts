/** run_shell through the handler registry: runs in the workspace in the sandbox, and never without it. */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { HandlerRegistry } from "../../../src/handlers/registry.js";
import { createShellHandler } from "../../../src/handlers/shell.js";
import type { Sandbox } from "../../../src/infra/sandbox/index.js";
import { noSandboxReason, testSandbox } from "../../helpers/sandbox.js";
import { makeToolContext } from "../../helpers/tool-context.js";

const log = pino({ level: "silent" });
const contexts: string[] = [];

function registryWith(sandbox: Sandbox): HandlerRegistry {
  const registry = new HandlerRegistry({ log, defaultTimeoutMs: 30_000 });
  const shell = createShellHandler(sandbox);
  registry.register(shell);
  return registry;
}

function context(overrides: Parameters<typeof makeToolContext>[0] = {}) {
  const ctx = makeToolContext(overrides);
  contexts.push(dirname(ctx.workspaceDir));
  return ctx;
}

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.skipIf(noSandboxReason !== undefined)("run_shell", () => {
  it("runs a command line in the workspace and returns exit code and output", async () => {
    const registry = registryWith(await testSandbox({ shell: { timeoutMs: 5_000 } }));
    const ctx = context();
    await mkdir(ctx.workspaceDir, { recursive: true });
    await writeFile(join(ctx.workspaceDir, "notes.txt"), "b\na\nc\n");
    const outcome = await registry.executeByTool("run_shell", { command: "sort notes.txt > sorted.txt; cat sorted.txt; exit 3" }, ctx);
    expect(outcome).toMatchObject({ ok: true, output: { exitCode: 3, stdout: "a\nb\nc\n", timedOut: false } });
    expect(await readFile(join(ctx.workspaceDir, "sorted.txt"), "utf8")).toBe("a\nb\nc\n");
  });

  it("stops a command at timeout_ms and reports it", async () => {
    const registry = registryWith(await testSandbox({ shell: { timeoutMs: 5_000 } }));
    const outcome = await registry.executeByTool("run_shell", { command: "echo started; sleep 30", timeout_ms: 500 }, context());
    expect(outcome).toMatchObject({ ok: true, output: { timedOut: true, stdout: "started\n", exitCode: null } });
  });

  it("refuses a timeout_ms above the configured limit", async () => {
    const registry = registryWith(await testSandbox({ shell: { timeoutMs: 5_000 } }));
    const outcome = await registry.executeByTool("run_shell", { command: "true", timeout_ms: 60_000 }, context());
    expect(outcome).toMatchObject({ ok: false, code: "invalid_input" });
  });

  it("needs the exec permission", async () => {
    const registry = registryWith(await testSandbox());
    const ctx = context({ permissions: { holder: "a member in a group chat", classes: ["read", "chat", "workspace"] } });
    const outcome = await registry.executeByTool("run_shell", { command: "id" }, ctx);
    expect(outcome).toMatchObject({ ok: false, code: "denied", error: expect.stringMatching(/needs the "exec" permission/) });
  });
});

describe("run_shell without the sandbox", () => {
  it("is refused, unconfined never, when the owner chose sandbox.mode none", async () => {
    const registry = registryWith(await testSandbox({ mode: "none" }));
    const outcome = await registry.executeByTool("run_shell", { command: "touch ran" }, context());
    expect(outcome).toMatchObject({ ok: false, code: "failed", error: expect.stringMatching(/sandbox\.mode: none/) });
  });
});
