import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { createFilesystemHandler, filesystemTools } from "../../src/handlers/filesystem.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { createSystemHandler, systemTools } from "../../src/handlers/system.js";
import { makeToolContext } from "../helpers/tool-context.js";

function setup(): HandlerRegistry {
  const registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 5000 });
  const catalog = new ToolCatalog(registry);
  registry.register("system", createSystemHandler(catalog), systemTools);
  registry.register("filesystem", createFilesystemHandler(), filesystemTools);
  return registry;
}

describe("get_tool_info", () => {
  it("returns the full definition of a forgivingly named tool and records it as disclosed", async () => {
    const registry = setup();
    const ctx = makeToolContext();
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: "Read-File" }, ctx);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.output).toMatchObject({
      name: "read_file",
      category: "File System",
      risk: "read",
      inputSchema: { type: "object", required: ["path"] },
    });
    expect((outcome.output as { description: string }).description).toContain("read_file(");
    expect([...ctx.disclosedTools]).toEqual(["read_file"]);
  });

  it("refuses an unknown name with the closest tool names and discloses nothing", async () => {
    const registry = setup();
    const ctx = makeToolContext();
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: "directory" }, ctx);
    expect(outcome).toMatchObject({ ok: false, code: "unknown_tool" });
    if (!outcome.ok) expect(outcome.error).toBe('No tool is named "directory". Closest tools: list_directory.');
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

  it("points to the catalog when nothing is close", async () => {
    const registry = setup();
    const outcome = await registry.executeByTool("get_tool_info", { tool_name: "launch_rocket" }, makeToolContext());
    if (outcome.ok) throw new Error("expected a failure");
    expect(outcome.error).toBe('No tool is named "launch_rocket". See the tool catalog for the names.');
  });

  it("is always loaded, read-only, in the System category", () => {
    expect(systemTools).toEqual([
      expect.objectContaining({ name: "get_tool_info", category: "System", risk: "read", alwaysLoaded: true }),
    ]);
  });
});
