/**
 * MCP over OAuth against a server built with the SDK's server-side auth on 127.0.0.1: the clear error before any
 * login, a login driven with fetch (the authorization redirect, then the gateway's callback route), a tool call with
 * the token, refreshes (before expiry on a manual clock, and after the server rejected a token), logout with
 * revocation, and tokens at rest sealed, never plaintext.
 */
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSecretBox } from "../../src/infra/crypto/secret-box.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";
import { mcpConfigSchema, type HttpServerConfig } from "../../src/mcp/config.js";
import { mcpFetch } from "../../src/mcp/guarded-fetch.js";
import { McpManager } from "../../src/mcp/manager.js";
import { CredentialStore } from "../../src/mcp/oauth/credentials.js";
import { OAuthKit } from "../../src/mcp/oauth/index.js";
import { oauthCallbackRoutes } from "../../src/mcp/oauth/routes.js";
import { startOAuthMcpServer, type OAuthMcpServer } from "../fakes/oauth-mcp-server.js";
import { captureLog } from "../helpers/captured-log.js";
import { ManualClock } from "../helpers/clock.js";
import { eventually } from "../helpers/wait.js";

const REDIRECT = "http://127.0.0.1:8787/mcp/oauth/callback";
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Setup {
  server: OAuthMcpServer;
  manager: McpManager;
  kit: OAuthKit;
  store: Store;
  clock: ManualClock;
  dataDir: string;
  callback: ReturnType<typeof oauthCallbackRoutes>;
}

async function setup(serverOpts: { tokenLifetimeS?: number } = {}): Promise<Setup> {
  const server = await startOAuthMcpServer(serverOpts);
  cleanup.push(() => server.close());
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-mcp-oauth-"));
  const { log } = captureLog([]);
  const store = await createStore({ url: null, dataDir, log, keyPrefix: "t:" });
  cleanup.push(() => store.close());
  const config = mcpConfigSchema.parse({ servers: { demo: { url: server.url } }, reconnectInitialMs: 50, reconnectMaxMs: 400, maxOutputChars: 5_000 });
  const clock = new ManualClock(Date.now());
  const fetchFn = mcpFetch(config, []);
  const kit = new OAuthKit({ credentials: new CredentialStore(store, () => loadSecretBox(dataDir, {})), clock, redirectUrl: REDIRECT, fetchFn });
  const manager = new McpManager({ config, dataDir, log, oauth: kit, fetch: fetchFn });
  cleanup.push(() => manager.stop());
  const callback = oauthCallbackRoutes({ kit, config, onLogin: (id) => manager.reconnect(id), onError: () => undefined });
  return { server, manager, kit, store, clock, dataDir, callback };
}

/** The owner's browser: opens the authorization link, follows the redirect to the gateway's callback. */
async function completeInBrowser(s: Setup, authorizationUrl: URL): Promise<Response> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  expect(response.status).toBe(302);
  const back = new URL(response.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  return s.callback.request(`${back.pathname}${back.search}`);
}

async function logIn(s: Setup): Promise<void> {
  const page = await completeInBrowser(s, await s.kit.startLogin("demo", s.manager.get("demo")!.config as HttpServerConfig));
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("logged in to the MCP server &quot;demo&quot;");
}

const connected = (s: Setup): Promise<unknown> => eventually(() => s.manager.get("demo")?.status.state === "connected", "the OAuth server to connect", 20_000);

describe("MCP over OAuth", () => {
  it("before any login: a clear error naming the command, without registering a client", async () => {
    const s = await setup();
    await s.manager.start();
    await eventually(() => s.manager.get("demo")?.status.needsLogin === true, "the server to need a login");
    const { status } = s.manager.get("demo")!;
    expect(status.error).toContain("run `switchboard mcp login demo`");
    await expect(s.manager.call("demo", "whoami", { greeting: "hi" })).rejects.toThrow(/switchboard mcp login demo/);
    expect(s.server.provider.counts.registrations).toBe(0);
  });

  it("logs in through the redirect and the callback, then calls a tool with the token", async () => {
    const s = await setup();
    await s.manager.start();
    await eventually(() => s.manager.get("demo")?.status.needsLogin === true, "the server to need a login");
    await logIn(s);
    expect(s.server.provider.counts).toMatchObject({ registrations: 1, codeExchanges: 1 });
    // The callback wakes the waiting connection: no backoff to sit out.
    await connected(s);
    const result = await s.manager.call("demo", "whoami", { greeting: "hello" });
    expect(result.parts[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^hello, client [0-9a-f-]{36}$/) });
    expect(s.server.tokensSeen.at(-1)).toMatch(/^at-/);
    expect(await s.kit.state("demo")).toMatchObject({ loggedIn: true, refreshable: true });
  });

  it("lists the server's resources and prompts, and reads them with the token, within the output cap", async () => {
    const s = await setup();
    await logIn(s);
    await s.manager.start();
    await connected(s);
    const { definition } = s.manager.get("demo")!;
    expect(definition?.resources).toEqual([{ uri: "docs://handbook", name: "handbook", description: "The team handbook", mimeType: "text/markdown" }]);
    expect(definition?.prompts).toEqual([{ name: "review", description: "Review a change", arguments: [{ name: "change", description: "What changed", required: true }] }]);
    const handbook = await s.manager.readResource("demo", "docs://handbook");
    const text = handbook.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
    expect(text).toMatch(/^\[resource docs:\/\/handbook \(text\/markdown\)\]\n# Handbook/);
    expect(text).toMatch(/\[\.\.\. \d+ more characters cut: the output is capped at 5000\]$/);
    const review = await s.manager.getPrompt("demo", "review", { change: "the login page" });
    expect(review.parts).toEqual([
      { type: "text", text: "[user]" },
      { type: "text", text: "Please review: the login page" },
    ]);
  });

  it("keeps tokens sealed at rest: neither the store nor its file holds them in plaintext, and the key file is 0600", async () => {
    const s = await setup();
    await logIn(s);
    const raw = await s.store.namespace<string>("mcp").get("oauth:demo");
    const issued = [...s.server.provider.accessTokens.keys(), ...s.server.provider.refreshTokens.keys()];
    expect(issued).toHaveLength(2);
    expect(raw).toMatch(/^v1\./);
    for (const token of issued) expect(raw).not.toContain(token);
    const key = await stat(join(s.dataDir, "secret.key"));
    expect(key.mode & 0o777).toBe(0o600);
    const files = await Promise.all(["switchboard.db", "switchboard.db-wal"].map((f) => readFile(join(s.dataDir, f)).catch(() => Buffer.alloc(0))));
    for (const token of issued) for (const file of files) expect(file.includes(token)).toBe(false);
    // Another key cannot open them.
    const other = new CredentialStore(s.store, () => loadSecretBox(s.dataDir, { SWITCHBOARD_SECRET_KEY: "another key" }));
    await expect(other.load("demo")).rejects.toThrow(/cannot be decrypted/);
  });

  it("refreshes the token shortly before it expires, on the clock, and the next call uses the new one", async () => {
    const s = await setup({ tokenLifetimeS: 600 });
    await logIn(s);
    await s.manager.start();
    await connected(s);
    const first = s.server.tokensSeen.at(-1);
    s.clock.advance(600_000 - 30_000);
    const result = await s.manager.call("demo", "whoami", { greeting: "again" });
    expect(result.isError).toBe(false);
    expect(s.server.provider.counts.refreshes).toBe(1);
    expect(s.server.tokensSeen.at(-1)).not.toBe(first);
    expect(s.server.provider.accessTokens.has(s.server.tokensSeen.at(-1)!)).toBe(true);
  });

  it("refreshes when the server rejects a token it has expired, and the call goes through", async () => {
    const s = await setup();
    await logIn(s);
    await s.manager.start();
    await connected(s);
    s.server.expireAccessTokens();
    const result = await s.manager.call("demo", "whoami", { greeting: "still here" });
    expect(result.parts[0]).toMatchObject({ text: expect.stringContaining("still here, client") });
    expect(s.server.provider.counts.refreshes).toBe(1);
  });

  it("logout revokes the tokens at the server and forgets them; the server then needs a login again", async () => {
    const s = await setup();
    await logIn(s);
    await s.manager.start();
    await connected(s);
    expect(await s.kit.logout("demo")).toEqual({ hadTokens: true, revoked: true });
    expect(s.server.provider.counts.revocations).toBe(2);
    expect(s.server.provider.refreshTokens.size).toBe(0);
    expect(await s.kit.state("demo")).toEqual({ loggedIn: false, refreshable: false });
    await expect(s.manager.call("demo", "whoami", { greeting: "hi" })).rejects.toThrow(/switchboard mcp login demo/);
    await eventually(() => s.manager.get("demo")?.status.needsLogin === true, "the server to need a login again");
  });

  it("a callback with an unknown state, or a refusal, is answered with why and changes nothing", async () => {
    const s = await setup();
    const unknown = await s.callback.request("/mcp/oauth/callback?code=abc&state=forged");
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("unknown or older than ten minutes");
    const refused = await s.callback.request("/mcp/oauth/callback?error=access_denied&error_description=no");
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("access_denied");
    expect(await s.kit.state("demo")).toMatchObject({ loggedIn: false });
  });

  it("a used callback link cannot be replayed", async () => {
    const s = await setup();
    const url = await s.kit.startLogin("demo", s.manager.get("demo")!.config as HttpServerConfig);
    const response = await fetch(url, { redirect: "manual" });
    const back = new URL(response.headers.get("location")!);
    expect((await s.callback.request(`${back.pathname}${back.search}`)).status).toBe(200);
    expect((await s.callback.request(`${back.pathname}${back.search}`)).status).toBe(400);
  });
});
