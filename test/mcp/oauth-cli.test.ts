/**
 * `switchboard mcp login | logout` and doctor's line for a server behind OAuth, as an owner runs them: the login
 * link the command prints, the browser's return handled by the callback over the same store (as the running
 * gateway would), doctor OK once logged in, and logout revoking the tokens.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config.js";
import { systemClock } from "../../src/core/clock.js";
import { formatDoctor } from "../../src/doctor.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { loadSecretBox } from "../../src/infra/crypto/secret-box.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";
import { registerMcpCommands } from "../../src/mcp/cli.js";
import { mcpConfigSchema, type McpConfig } from "../../src/mcp/config.js";
import { mcpFetch } from "../../src/mcp/guarded-fetch.js";
import { CredentialStore } from "../../src/mcp/oauth/credentials.js";
import { OAuthKit } from "../../src/mcp/oauth/index.js";
import { oauthCallbackRoutes } from "../../src/mcp/oauth/routes.js";
import { startOAuthMcpServer, type OAuthMcpServer } from "../fakes/oauth-mcp-server.js";

const REDIRECT = "http://127.0.0.1:8787/mcp/oauth/callback";
let server: OAuthMcpServer;
let dataDir: string;
let config: McpConfig;
let store: Store;
let kit: OAuthKit;
beforeAll(async () => {
  server = await startOAuthMcpServer();
  dataDir = await mkdtemp(join(tmpdir(), "switchboard-mcp-oauth-cli-"));
  config = mcpConfigSchema.parse({ servers: { demo: { url: server.url } } });
  // The store the gateway, doctor and the commands share (SQLite in the data dir, the default key prefix).
  store = await createStore({ url: null, dataDir, log: pino({ level: "silent" }), keyPrefix: "switchboard:" });
  kit = new OAuthKit({ credentials: new CredentialStore(store, () => loadSecretBox(dataDir, {})), clock: systemClock, redirectUrl: REDIRECT, fetchFn: mcpFetch(config, []) });
});
afterAll(async () => {
  await store.close();
  await server.close();
});
afterEach(() => {
  process.exitCode = undefined;
});

/** Runs `switchboard mcp <args>` in-process; the printed lines and the exit code. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerMcpCommands(program, {
    setup: () => ({ config, dataDir, redact: (text) => text }),
    openOAuth: async () => ({ kit, close: async () => undefined }),
    out: (line) => lines.push(line),
  });
  await program.parseAsync(["node", "switchboard", "mcp", ...args]);
  return { code: Number(process.exitCode ?? 0), stdout: lines.map((l) => `${l}\n`).join("") };
}

/** What the running gateway does when the browser comes back. */
function gatewayCallback(location: string): Promise<Response> {
  const back = new URL(location);
  return Promise.resolve(oauthCallbackRoutes({ kit, config, onLogin: () => undefined, onError: () => undefined }).request(`${back.pathname}${back.search}`));
}

/** doctor's MCP lines (the feature's checks alone: the whole doctor also probes the sandbox, the LLM...). */
async function doctorReport(): Promise<string> {
  const whole = configSchema.parse({ dataDir, mcp: { servers: { demo: { url: server.url } } } });
  return formatDoctor(await mcpFeature.doctor!(whole.mcp, whole, pino({ level: "silent" })));
}

describe("switchboard mcp login / logout", () => {
  it("doctor says to log in; login prints the link; after the browser's return doctor is OK; logout revokes", async () => {
    expect(await doctorReport()).toMatch(/^FAIL mcp:demo .*needs an owner to log in first[\s\S]*switchboard mcp login demo/m);

    const login = await cli("login", "demo");
    expect(login.code).toBe(0);
    const link = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(login.stdout)?.[1];
    expect(link).toBeDefined();
    expect(new URL(link!).searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(new URL(link!).searchParams.get("code_challenge_method")).toBe("S256");
    const approved = await fetch(link!, { redirect: "manual" });
    expect((await gatewayCallback(approved.headers.get("location")!)).status).toBe(200);

    expect(await doctorReport()).toMatch(/^OK\s+mcp:demo\s+streamable-http, 1 tool\(s\): whoami/m);

    const logout = await cli("logout", "demo");
    expect(logout).toEqual({ code: 0, stdout: 'Logged out of the MCP server "demo": its tokens are forgotten, and the server revoked the tokens.\n' });
    expect(server.provider.refreshTokens.size).toBe(0);
    expect(await cli("logout", "demo")).toEqual({ code: 0, stdout: 'There was no OAuth login for the MCP server "demo"; nothing is stored for it now.\n' });
  });

  it("refuses a server that is not a configured remote one", async () => {
    expect(await cli("login", "nope")).toEqual({ code: 1, stdout: 'No remote MCP server (with a url) is configured as "nope". Remote servers: demo.\n' });
  });
});
