/** The mcp handler through the real registry, against the everything server and the fault server. */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpHandler, mcpPromptSection } from "../../src/handlers/mcp.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { ToolPermissions } from "../../src/core/tools.js";
import type { McpManager } from "../../src/mcp/manager.js";
import { assertToolDefinitionsValid } from "../handlers/tool-rules.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { connected, everythingStdio, faultServer, makeManager } from "./helpers.js";
import { definitionsOf } from "../helpers/handler-spec.js";

const member: ToolPermissions = { holder: "a member in a direct chat", classes: ["read", "chat", "workspace", "exec"] };
const owner: ToolPermissions = { holder: "an owner in a direct chat", classes: ["read", "chat", "workspace", "exec", "admin"] };

let manager: McpManager;
beforeAll(async () => {
  ({ manager } = await makeManager({ servers: { everything: everythingStdio(), private: { ...faultServer(), ownersOnly: true } } }));
  await manager.start();
  await Promise.all([connected(manager, "everything"), connected(manager, "private")]);
});
afterAll(() => manager.stop());

function registryWith(vision: boolean): HandlerRegistry {
  const registry = new HandlerRegistry({ log: pino({ level: "silent" }), defaultTimeoutMs: 10_000 });
  registry.register(createMcpHandler(manager, { vision }));
  return registry;
}

const call = (registry: HandlerRegistry, input: unknown, permissions = member) =>
  registry.executeByTool("call_mcp_tool", input, makeToolContext({ permissions }));

describe("the mcp tools", () => {
  it("follow the shared rules for tool definitions", () => {
    assertToolDefinitionsValid(definitionsOf(createMcpHandler(manager, { vision: false })));
  });
});

describe("call_mcp_tool", () => {
  it("gives images to a vision model as image parts, and a note to a model without vision", async () => {
    const input = { server: "everything", tool_name: "get-tiny-image" };
    const seeing = await call(registryWith(true), input);
    expect(seeing).toMatchObject({ ok: true, output: { kind: "tool-media", parts: expect.arrayContaining([expect.objectContaining({ type: "image", mediaType: "image/png" })]) } });
    const blind = await call(registryWith(false), input);
    expect(blind).toMatchObject({ ok: true, output: expect.stringContaining("[image image/png: not shown, this model does not take images]") });
  });

  it("names the server's tools for an unknown tool, the servers for an unknown server; a tool's error is an error", async () => {
    const registry = registryWith(false);
    expect(await call(registry, { server: "everything", tool_name: "ecko" })).toMatchObject({ ok: false, code: "invalid_input", error: expect.stringContaining("Its tools: echo,") });
    // The owners-only server is not named to a member.
    expect(await call(registry, { server: "nope", tool_name: "x" })).toMatchObject({ ok: false, error: 'No MCP server "nope". Servers: everything.' });
    expect(await call(registry, { server: "private", tool_name: "fail" }, owner)).toMatchObject({
      ok: false,
      code: "failed",
      error: 'The MCP tool "fail" reported an error: the backend said no',
    });
  });

  it("keeps an owners-only server from members: not shown, not listed, refused", async () => {
    const registry = registryWith(false);
    expect(mcpPromptSection(manager, member)).not.toContain("private");
    expect(mcpPromptSection(manager, owner)).toContain("### fake-faults (`private`)");
    const listed = await registry.executeByTool("list_mcp_servers", {}, makeToolContext({ permissions: member }));
    expect(listed).toMatchObject({ ok: true, output: [expect.objectContaining({ id: "everything", state: "connected" })] });
    expect((listed as { output: unknown[] }).output).toHaveLength(1);
    expect(await call(registry, { server: "private", tool_name: "add", arguments: { a: 1 } })).toMatchObject({
      ok: false,
      code: "denied",
      error: expect.stringContaining('The owners-only MCP server "private" needs the "admin" permission'),
    });
    expect(await call(registry, { server: "private", tool_name: "add", arguments: { a: 1 } }, owner)).toEqual({ ok: true, tool: "call_mcp_tool", output: "1" });
  });
});

describe("get_mcp_instructions", () => {
  it("returns the server's own instructions", async () => {
    const registry = registryWith(false);
    const result = await registry.executeByTool("get_mcp_instructions", { server: "private" }, makeToolContext({ permissions: owner }));
    expect(result).toEqual({ ok: true, tool: "get_mcp_instructions", output: "Use add for sums. The other tools misbehave on purpose." });
  });
});

describe("read_mcp_resource and get_mcp_prompt", () => {
  const tool = (name: string, input: unknown, permissions = member) => registryWith(false).executeByTool(name, input, makeToolContext({ permissions }));

  it("lists the everything server's resources and prompts in the section and in list_mcp_servers", async () => {
    const section = mcpPromptSection(manager, member) ?? "";
    expect(section).toContain("Resources:\n- `demo://resource/static/document/architecture.md` architecture.md: Static document file");
    expect(section).toContain("Prompts:\n- **simple-prompt**: A prompt with no arguments");
    expect(section).toContain("- **args-prompt**: A prompt with two arguments, one required and one optional\n  - `city` (required): Name of the city\n  - `state` (optional)");
    const listed = await tool("list_mcp_servers", {});
    expect(listed).toMatchObject({
      ok: true,
      output: expect.arrayContaining([
        expect.objectContaining({ id: "everything", resources: expect.arrayContaining(["demo://resource/static/document/architecture.md"]), prompts: expect.arrayContaining(["args-prompt"]) }),
      ]),
    });
  });

  it("reads a resource and fills a prompt with its arguments", async () => {
    const read = await tool("read_mcp_resource", { server: "everything", uri: "demo://resource/static/document/architecture.md" });
    expect(read).toMatchObject({ ok: true, output: expect.stringMatching(/^\[resource demo:\/\/resource\/static\/document\/architecture\.md \(text\/markdown\)\]\n/) });
    const prompt = await tool("get_mcp_prompt", { server: "everything", name: "args-prompt", arguments: { city: "Lisbon" } });
    expect(prompt).toMatchObject({ ok: true, output: expect.stringMatching(/^\[user\]\n.*Lisbon/) });
  });

  it("names the prompts for an unknown prompt, and reports the server's refusal of an unknown resource", async () => {
    expect(await tool("get_mcp_prompt", { server: "everything", name: "nope" })).toMatchObject({ ok: false, code: "invalid_input", error: expect.stringContaining("Its prompts: simple-prompt, args-prompt") });
    expect(await tool("read_mcp_resource", { server: "everything", uri: "demo://nothing/here" })).toMatchObject({ ok: false, code: "failed", error: expect.stringContaining('MCP server "everything": the request for the resource "demo://nothing/here" failed') });
  });

  it("keeps an owners-only server's resources from members", async () => {
    expect(await tool("read_mcp_resource", { server: "private", uri: "x://y" })).toMatchObject({ ok: false, code: "denied" });
  });
});
