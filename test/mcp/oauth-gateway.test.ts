/**
 * MCP over OAuth through the whole gateway: before a login the model and /readyz say to run `switchboard mcp login`;
 * the owner's login link comes from the console, the browser (fetch) comes back to the gateway's own HTTP server,
 * and the model's next call goes through with the token. Also the address guard on the authorization server.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { toolResultsOf, type FakeRequest } from "../fakes/openai-server.js";
import { startOAuthMcpServer, type OAuthMcpServer } from "../fakes/oauth-mcp-server.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { eventually } from "../helpers/wait.js";

let t: TestGateway | undefined;
let server: OAuthMcpServer | undefined;
afterEach(async () => {
  await t?.close();
  await server?.close();
  t = server = undefined;
});

/** The model calls whoami once per turn, then quotes what it got. */
function callThenQuote(gateway: TestGateway): void {
  gateway.fake.respondWith((request: FakeRequest) => {
    const result = request.body.messages?.at(-1)?.role === "tool" ? toolResultsOf(request).at(-1) : undefined;
    if (!result) return { toolCalls: [{ name: "call_mcp_tool", arguments: { server: "demo", tool_name: "whoami", arguments: { greeting: "hi" } } }] };
    return { text: `The tool said: ${typeof result.content === "string" ? result.content : JSON.stringify(result.content)}` };
  });
}

async function readyz(gw: TestGateway): Promise<Record<string, { ok: boolean; detail: string }>> {
  return ((await (await fetch(`${gw.url}/readyz`)).json()) as { components: Record<string, { ok: boolean; detail: string }> }).components;
}

describe("MCP over OAuth in the gateway", () => {
  it("says to log in, then logs in through the console's link and the gateway's callback, and the model's call goes through", async () => {
    server = await startOAuthMcpServer();
    t = await startTestGateway({ mcp: { servers: { demo: { url: server.url, risk: "read" } }, reconnectInitialMs: 50, reconnectMaxMs: 200 } } as ConfigInput);
    const gw = t;
    const mcp = gw.gateway.feature(mcpFeature)!.mcp!;
    await eventually(() => mcp.get("demo")?.status.needsLogin === true, "the server to need a login");
    expect((await readyz(gw))["mcp:demo"]).toEqual({ ok: false, detail: expect.stringContaining("run `switchboard mcp login demo`") });

    callThenQuote(gw);
    const before = await gw.post({ chatId: "dm-owner", userId: "owner", text: "who am I there?" });
    expect(before.body.replies?.[0]?.text).toContain("switchboard mcp login demo");

    const started = await fetch(`${gw.url}/api/v1/console/mcp/demo/login`, { method: "POST" });
    expect(started.status).toBe(200);
    const { url } = (await started.json()) as { url: string };
    const approved = await fetch(url, { redirect: "manual" });
    const back = approved.headers.get("location")!;
    expect(back.startsWith(`${gw.url}/mcp/oauth/callback?`)).toBe(true);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    await eventually(() => mcp.get("demo")?.status.state === "connected", "the server to connect after the login", 20_000);
    expect((await readyz(gw))["mcp:demo"]).toEqual({ ok: true, detail: "streamable-http, 1 tool(s)" });

    const after = await gw.post({ chatId: "dm-owner", userId: "owner", text: "who am I there now?" });
    expect(after.body.replies?.[0]?.text).toMatch(/^The tool said: hi, client [0-9a-f-]{36}$/);
    const consoleList = (await (await fetch(`${gw.url}/api/v1/console/mcp`)).json()) as { servers: Array<Record<string, unknown>> };
    expect(consoleList.servers).toEqual([{ name: "demo", status: "connected", tools: ["whoami"] }]);
  });

  it("refuses an authorization server at a private address the operator did not allow, and names the setting", async () => {
    server = await startOAuthMcpServer({ separateAuthServer: true });
    const { url } = server;
    // Configuring the MCP server allows its own address, not the other port its metadata names.
    t = await startTestGateway({ mcp: { servers: { demo: { url } } } } as ConfigInput);
    const refused = await fetch(`${t.url}/api/v1/console/mcp/demo/login`, { method: "POST" });
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { message: string }).message).toMatch(/Refused to connect to 127\.0\.0\.1: it is a loopback address \(this machine\)\. The operator can allow it by listing it in web\.allowPrivate/);
    await t.close();

    t = await startTestGateway({ mcp: { servers: { demo: { url } } }, web: { allowPrivate: ["127.0.0.1"] } } as ConfigInput);
    const allowed = await fetch(`${t.url}/api/v1/console/mcp/demo/login`, { method: "POST" });
    expect(allowed.status).toBe(200);
  });
});
