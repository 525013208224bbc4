/**
 * MCP through the whole gateway: the WebChat API, the router, the agent with the fake LLM, the registry and real
 * MCP servers (the everything server from npm, the fault server) over stdio.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { offeredToolNamesOf, systemPromptOf, toolResultsOf, type FakeRequest } from "../fakes/openai-server.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { eventually } from "../helpers/wait.js";
import { everythingStdio, faultServer } from "./helpers.js";
import { mcpFeature } from "../../src/features/mcp.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function gatewayWith(servers: Record<string, unknown>, extra: ConfigInput = {}): Promise<TestGateway> {
  t = await startTestGateway({ ...extra, mcp: { servers, ...extra.mcp } } as ConfigInput);
  const gateway = t.gateway;
  for (const id of Object.keys(servers)) {
    await eventually(() => gateway.feature(mcpFeature)!.mcp?.get(id)?.status.state === "connected", `MCP server ${id} to connect`, 30_000);
  }
  return t;
}

/** The model calls call_mcp_tool once with `call`, then answers with what the tool returned. */
function callThenQuote(gateway: TestGateway, call: Record<string, unknown>): void {
  gateway.fake.respondWith((request: FakeRequest) => {
    const [result] = toolResultsOf(request);
    if (!result) return { toolCalls: [{ name: "call_mcp_tool", arguments: call }] };
    return { text: `The tool said: ${typeof result.content === "string" ? result.content : JSON.stringify(result.content)}` };
  });
}

describe("MCP end to end", () => {
  it("the model sees the everything server's tools in full and calls echo; the reply carries the echo", async () => {
    const gw = await gatewayWith({ everything: everythingStdio() });
    callThenQuote(gw, { server: "everything", tool_name: "echo", arguments: { message: "ping from the e2e test" } });
    const reply = await gw.post({ chatId: "dm-alice", userId: "alice", text: "echo something" });
    expect(reply.body.replies?.[0]?.text).toBe("The tool said: Echo: ping from the e2e test");

    const first = gw.fake.requests[0]!;
    const prompt = systemPromptOf(first);
    expect(prompt).toContain("## MCP Servers\n\nCall these tools with call_mcp_tool(server, tool_name, arguments)");
    expect(prompt).toContain("### Everything Reference Server (`everything`)");
    expect(prompt).toContain("- **echo**: Echoes back the input string\n  - `message` (string, required): Message to echo");
    expect(prompt).toContain("- **get-sum**: Returns the sum of two numbers\n  - `a` (number, required): First number");
    expect(prompt).not.toContain("None configured.");
    expect(offeredToolNamesOf(first)).toEqual(expect.arrayContaining(["call_mcp_tool", "list_mcp_servers", "get_mcp_instructions"]));

    const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as { components: Record<string, { ok: boolean; detail: string }> };
    expect(ready.components["mcp:everything"]).toEqual({ ok: true, detail: expect.stringMatching(/^stdio, \d+ tool\(s\)$/) });
  });

  it("a member without the server's risk class neither sees nor reaches it", async () => {
    // WebChat users are members (no "admin"); the vault needs "admin".
    const gw = await gatewayWith({ everything: everythingStdio(), vault: { ...faultServer(), risk: "admin" } });
    callThenQuote(gw, { server: "vault", tool_name: "add", arguments: { a: 1, b: 2 } });
    const reply = await gw.post({ chatId: "dm-bob", userId: "bob", text: "use the vault" });
    const prompt = systemPromptOf(gw.fake.requests[0]!);
    expect(prompt).toContain("(`everything`)");
    expect(prompt).not.toContain("vault");
    expect(prompt).not.toContain("**add**");
    expect(reply.body.replies?.[0]?.text).toContain('"code":"denied"');
    expect(reply.body.replies?.[0]?.text).toContain('needs the \\"admin\\" permission');
    expect(gw.logs.some((l) => l.msg === "tool call refused" && l.tool === "call_mcp_tool")).toBe(true);
  });

  it("a hanging tool times out and the turn still answers", async () => {
    const gw = await gatewayWith({ faults: { ...faultServer(), timeoutMs: 800 } });
    callThenQuote(gw, { server: "faults", tool_name: "hang", arguments: {} });
    const reply = await gw.post({ chatId: "dm-carol", userId: "carol", text: "try the slow one" });
    expect(reply.body.outcome).toBe("answered");
    expect(reply.body.replies?.[0]?.text).toContain('"code":"timeout"');
    expect(reply.body.replies?.[0]?.text).toContain("did not answer within 800 ms");
  });

  it("gives a vision model (Anthropic API) an image result as an image block", async () => {
    const gw = await gatewayWith({ everything: everythingStdio() }, { llm: { provider: "anthropic", vision: true } });
    callThenQuote(gw, { server: "everything", tool_name: "get-tiny-image", arguments: {} });
    await gw.post({ chatId: "dm-erin", userId: "erin", text: "show me the image" });
    const [result] = toolResultsOf(gw.fake.requests[1]!);
    expect(result?.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "image", source: expect.objectContaining({ type: "base64", media_type: "image/png" }) })]),
    );
  });

  it("keeps the server's secrets out of what the model sees, and gives the server only its own env", async () => {
    const token = "tok-mcp-very-secret-0042";
    const gw = await gatewayWith({ faults: { ...faultServer(), env: { FAKE_MCP_TOKEN: token } } });
    callThenQuote(gw, { server: "faults", tool_name: "secret_env", arguments: {} });
    const reply = await gw.post({ chatId: "dm-dan", userId: "dan", text: "what is your token" });
    expect(reply.body.replies?.[0]?.text).toBe("The tool said: token=[REDACTED] llm=(none)");
    expect(JSON.stringify(gw.fake.requests.map((r) => r.body))).not.toContain(token);
    expect(JSON.stringify(gw.logs)).not.toContain(token);
  });
});
