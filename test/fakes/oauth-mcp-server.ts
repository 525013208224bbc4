/**
 * An OAuth-protected MCP server built with the official SDK's server side, on 127.0.0.1: its mcpAuthRouter (RFC 8414
 * and RFC 9728 metadata, dynamic client registration, /authorize with PKCE, /token, /revoke) over an in-memory
 * provider that issues refresh tokens and rotates them, and a Streamable HTTP MCP endpoint behind requireBearerAuth
 * with a tool, a resource and a prompt. The test drives the browser's part with fetch: /authorize answers with a
 * redirect straight away, as if the user had approved.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Response } from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { z } from "zod";

interface Grant {
  clientId: string;
  resource?: URL;
}

class MemoryProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  readonly accessTokens = new Map<string, Grant>();
  readonly refreshTokens = new Map<string, Grant>();
  /** What the tests look at. */
  readonly counts = { registrations: 0, codeExchanges: 0, refreshes: 0, revocations: 0 };

  constructor(private readonly tokenLifetimeS: number) {}

  readonly clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => this.clients.get(id),
    registerClient: (client) => {
      this.counts.registrations += 1;
      const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
      this.clients.set(full.client_id, full);
      return full;
    },
  };

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge, redirectUri: params.redirectUri, ...(params.resource ? { resource: params.resource } : {}) });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const grant = this.codes.get(code);
    if (!grant) throw new InvalidGrantError("unknown code");
    return grant.challenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const grant = this.codes.get(code);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("unknown code");
    this.codes.delete(code);
    this.counts.codeExchanges += 1;
    return this.issue(grant);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("unknown refresh token");
    // Rotation: the old refresh token and every access token of the client stop working.
    this.refreshTokens.delete(refreshToken);
    for (const [token, g] of this.accessTokens) if (g.clientId === client.client_id) this.accessTokens.delete(token);
    this.counts.refreshes += 1;
    return this.issue(grant);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.accessTokens.get(token);
    if (!grant) throw new InvalidTokenError("unknown or expired access token");
    return { token, clientId: grant.clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + this.tokenLifetimeS };
  }

  async revokeToken(_client: OAuthClientInformationFull, request: { token: string }): Promise<void> {
    this.counts.revocations += 1;
    this.accessTokens.delete(request.token);
    this.refreshTokens.delete(request.token);
  }

  private issue(grant: Grant): OAuthTokens {
    const access = `at-${randomUUID()}`;
    const refresh = `rt-${randomUUID()}`;
    this.accessTokens.set(access, grant);
    this.refreshTokens.set(refresh, grant);
    return { access_token: access, token_type: "bearer", expires_in: this.tokenLifetimeS, refresh_token: refresh };
  }
}

export interface OAuthMcpServer {
  /** The MCP endpoint (…/mcp). */
  url: string;
  provider: MemoryProvider;
  /** The access tokens the MCP endpoint accepted, in order. */
  tokensSeen: string[];
  /** Makes every access token issued so far invalid, as if they had expired at the server. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

/** A fresh McpServer per request (stateless Streamable HTTP): one tool, one resource, one prompt. */
function mcpServer(): McpServer {
  const server = new McpServer({ name: "oauth-demo", version: "1.0.0" });
  server.registerTool("whoami", { description: "Says which OAuth client called", inputSchema: { greeting: z.string() } }, ({ greeting }, extra) => ({
    content: [{ type: "text", text: `${greeting}, client ${extra.authInfo?.clientId ?? "unknown"}` }],
  }));
  server.registerResource("handbook", "docs://handbook", { description: "The team handbook", mimeType: "text/markdown" }, () => ({
    contents: [{ uri: "docs://handbook", mimeType: "text/markdown", text: "# Handbook\nBe kind. ".repeat(2_000) }],
  }));
  server.registerPrompt(
    "review",
    { description: "Review a change", argsSchema: { change: z.string().describe("What changed") } },
    ({ change }) => ({ messages: [{ role: "user", content: { type: "text", text: `Please review: ${change}` } }] }),
  );
  return server;
}

async function listen(app: express.Express): Promise<{ http: Server; base: URL }> {
  const http: Server = app.listen(0, "127.0.0.1");
  await once(http, "listening");
  return { http, base: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}`) };
}

async function closeAll(servers: Server[]): Promise<void> {
  for (const http of servers) {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
}

/**
 * `separateAuthServer`: the authorization server listens on a port of its own, and the MCP server's protected
 * resource metadata points there (as hosted services do); otherwise both share one origin.
 */
export async function startOAuthMcpServer(opts: { tokenLifetimeS?: number; separateAuthServer?: boolean } = {}): Promise<OAuthMcpServer> {
  const provider = new MemoryProvider(opts.tokenLifetimeS ?? 3600);
  const app = express();
  const { http, base } = await listen(app);
  const authApp = opts.separateAuthServer ? express() : undefined;
  const auth = authApp ? await listen(authApp) : undefined;
  const mcpUrl = new URL("/mcp", base);
  const tokensSeen: string[] = [];
  const noLimit = { rateLimit: false as const };
  const authOptions = {
    provider,
    issuerUrl: auth?.base ?? base,
    resourceServerUrl: mcpUrl,
    authorizationOptions: noLimit,
    tokenOptions: noLimit,
    clientRegistrationOptions: noLimit,
    revocationOptions: noLimit,
  };
  if (authApp) {
    authApp.use(mcpAuthRouter(authOptions));
    app.use(mcpAuthMetadataRouter({ oauthMetadata: createOAuthMetadata(authOptions), resourceServerUrl: mcpUrl }));
  } else {
    app.use(mcpAuthRouter(authOptions));
  }
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post("/mcp", express.json(), bearer, async (req, res) => {
    tokensSeen.push(req.auth?.token ?? "");
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServer();
    res.on("close", () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get("/mcp", bearer, (_req, res) => void res.status(405).end());
  return {
    url: mcpUrl.toString(),
    provider,
    tokensSeen,
    expireAccessTokens: () => provider.accessTokens.clear(),
    close: () => closeAll(auth ? [http, auth.http] : [http]),
  };
}
