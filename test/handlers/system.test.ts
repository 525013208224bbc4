import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema, type ConfigInput } from "../../src/config.js";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { createFilesystemHandler } from "../../src/handlers/filesystem.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { createSystemHandler } from "../../src/handlers/system.js";
import { ThinkingSettings } from "../../src/sessions/thinking.js";
import { TurnLog } from "../../src/sessions/turn-log.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { assertToolDefinitionsValid } from "./tool-rules.js";

const log = pino({ level: "silent" });
let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-system-"));
  store = await createStore({ url: null, dataDir: dir, log, keyPrefix: `test-${randomUUID()}:` });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function setup(llm: ConfigInput["llm"] = {}): HandlerRegistry {
  const registry = new HandlerRegistry({ log, defaultTimeoutMs: 5000 });
  const catalog = new ToolCatalog(registry);
  const config = configSchema.parse({ llm: { model: "fake-model", ...llm } });
  registry.register(createSystemHandler({ catalog, thinking: new ThinkingSettings(store), turnLog: new TurnLog(store), llm: config.llm }));
  registry.register(createFilesystemHandler());
  return registry;
}

describe("get_tool_info", () => {
  it.each(["Read-File", "READ_FILE", " read file "])("returns the full definition of %j (case, dashes, spaces forgiven)", async (asked) => {
    const registry = setup();
    const ctx = makeToolContext();
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: asked }, ctx);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const lines = String(outcome.output).split("\n");
    expect(lines[0]).toBe("read_file(path: string, offset?: number, limit?: number)");
    expect(lines).toContain("- path: File path relative to the workspace, e.g. notes/todo.md");
    // The rest of its family on one line: a signature each, enough to call it.
    expect(lines.at(-1)).toBe("Also in File System: write_file(path: string, content: string, append?: boolean), list_directory(path?: string)");
    expect([...ctx.disclosedTools]).toEqual(["read_file", "write_file", "list_directory"]);
  });

  it.each([
    ["directory", "list_directory"],
    ["read_fil", "read_file"],
    ["write_flie", "write_file"],
  ])("answers the near miss %j with suggestions and discloses nothing", async (asked, suggested) => {
    const registry = setup();
    const ctx = makeToolContext();
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: asked }, ctx);
    expect(outcome).toMatchObject({ ok: false, code: "unknown_tool" });
    if (outcome.ok) return;
    expect(outcome.error).toBe(`No tool is named "${asked}". Closest tools: ${suggested}.`);
    expect(outcome.error).not.toContain("inputSchema");
    expect(ctx.disclosedTools.size).toBe(0);
  });

  it("neither describes nor discloses a tool the sender may not use", async () => {
    const registry = setup();
    const ctx = makeToolContext({ permissions: { holder: "a guest in a group chat", classes: ["read", "chat"] } });
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: "write_file" }, ctx);
    expect(outcome).toMatchObject({ ok: false, code: "denied" });
    if (!outcome.ok) expect(outcome.error).toMatch(/needs the "workspace" permission, which a guest in a group chat does not have/);
    expect(ctx.disclosedTools.size).toBe(0);
  });

  it("points to the tools when nothing is close", async () => {
    const registry = setup();
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: "launch_rocket" }, makeToolContext());
    if (outcome.ok) throw new Error("expected a failure");
    expect(outcome.error).toBe('No tool is named "launch_rocket". The tools you can use are listed with your tools.');
  });
});

describe("enable_thinking", () => {
  it("stores the session's setting when the model can reason", async () => {
    const registry = setup({ reasoning: true, provider: "anthropic", apiKey: "k" });
    const ctx = makeToolContext({ sessionKey: "web:chat-9" });
    const outcome = await registry.executeByTool("enable_thinking", { enabled: true, level: "high" }, ctx);
    expect(outcome).toMatchObject({ ok: true, output: { thinking: "on" } });
    if (outcome.ok) expect((outcome.output as { message: string }).message).toMatch(/extended thinking/);
    expect(await new ThinkingSettings(store).get("web:chat-9")).toEqual({ enabled: true, level: "high" });
    expect(await new ThinkingSettings(store).get("web:chat-other")).toEqual({ enabled: false, level: "medium" });
  });

  it("says plainly that the configured model cannot reason, and changes nothing", async () => {
    const registry = setup({ reasoning: false });
    const ctx = makeToolContext();
    const outcome = await registry.executeByTool("enable_thinking", { enabled: true }, ctx);
    expect(outcome).toMatchObject({ ok: true, output: { thinking: "unsupported" } });
    if (outcome.ok) expect((outcome.output as { message: string }).message).toMatch(/fake-model\) is not set up for reasoning/);
    expect(await new ThinkingSettings(store).get(ctx.sessionKey)).toEqual({ enabled: false, level: "medium" });
  });
});

describe("get_session_logs", () => {
  const turn = (traceId: string, tool: string) => ({
    traceId,
    startedAt: "2026-03-04T05:06:00.000Z",
    durationMs: 12,
    steps: 2,
    outcome: "answered" as const,
    toolCalls: [{ tool, ok: true, durationMs: 3 }],
  });

  it("shows the caller's own session only, the most recent turns last", async () => {
    const turns = new TurnLog(store);
    await turns.append("web:mine", turn("t1", "read_file"));
    await turns.append("web:mine", turn("t2", "write_file"));
    await turns.append("web:theirs", turn("t3", "list_directory"));
    const registry = setup();
    const outcome = await registry.executeByTool("get_session_logs", { turns: 1 }, makeToolContext({ sessionKey: "web:mine" }));
    expect(outcome).toMatchObject({ ok: true, output: { turns: [{ traceId: "t2", toolCalls: [{ tool: "write_file" }] }] } });
    const all = await registry.executeByTool("get_session_logs", {}, makeToolContext({ sessionKey: "web:mine" }));
    expect(JSON.stringify(all)).not.toContain("list_directory");
  });

  it("keeps a bounded number of turns and shortens long errors", async () => {
    const turns = new TurnLog(store);
    for (let i = 0; i < 25; i++) {
      await turns.append("web:long", { ...turn(`t${i}`, "x"), toolCalls: [{ tool: "x", ok: false, code: "failed", error: "e".repeat(1000), durationMs: 1 }] });
    }
    const kept = await turns.recent("web:long", 100);
    expect(kept).toHaveLength(20);
    expect(kept[0]?.traceId).toBe("t5");
    expect(kept[0]?.toolCalls[0]?.error?.length).toBe(300);
  });

  it("still reads the log as releases before kept it (one record), behind the newer turns, until a reset", async () => {
    await store.namespace<unknown>("sessions").set("web:old#turns", [turn("old-1", "x"), turn("old-2", "y")]);
    const turns = new TurnLog(store);
    await turns.append("web:old", turn("new-1", "z"));
    expect((await turns.recent("web:old", 10)).map((t) => t.traceId)).toEqual(["old-1", "old-2", "new-1"]);
    expect((await turns.recent("web:old", 2)).map((t) => t.traceId)).toEqual(["old-2", "new-1"]);
    await turns.reset("web:old");
    expect(await turns.recent("web:old", 10)).toEqual([]);
  });
});

describe("the system tools", () => {
  it("follow the tool rules and sit in the System category", () => {
    const systemTools = setup().listTools().filter((tool) => tool.category === "System");
    assertToolDefinitionsValid(systemTools);
    expect(systemTools.map((t) => [t.name, t.category, t.risk])).toEqual([
      ["get_tool_info", "System", "read"],
      ["enable_thinking", "System", "chat"],
      ["get_session_logs", "System", "read"],
    ]);
  });
});
