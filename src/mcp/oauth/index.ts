/**
 * OAuth logins to remote MCP servers: started by an owner (CLI or console) with a link to open, finished when the
 * browser comes back to the gateway's callback, forgotten (and revoked at the server) on logout. The connection's
 * side (sending and refreshing tokens) is the provider in "connection" mode.
 */
import { randomBytes } from "node:crypto";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import type { HttpServerConfig } from "../config.js";
import { describeError } from "../errors.js";
import type { CredentialStore, OAuthRecord } from "./credentials.js";
import { StoredOAuthProvider, type ProviderOptions } from "./provider.js";

/** Where the authorization server sends the browser back, on the gateway's own HTTP server. */
export const OAUTH_CALLBACK_PATH = "/mcp/oauth/callback";

export class OAuthLoginError extends Error {
  override name = "OAuthLoginError";
}

export interface OAuthKitOptions {
  credentials: CredentialStore;
  clock: Clock;
  /** The callback URL used unless a login gives its own (the console gives the address it was opened at). */
  redirectUrl: string;
  /** Every OAuth request goes through it (the address guard). */
  fetchFn: FetchLike;
}

export interface LoginState {
  loggedIn: boolean;
  /** When the access token expires (ISO), if the server said. */
  expiresAt?: string;
  refreshable: boolean;
}

export class OAuthKit {
  constructor(private readonly opts: OAuthKitOptions) {}

  /** The provider a connection to `server` sends its requests with. */
  connectionProvider(id: string, server: HttpServerConfig, log: Logger): StoredOAuthProvider {
    return new StoredOAuthProvider(this.providerOptions(id, server, this.opts.redirectUrl), { kind: "connection", log });
  }

  /** Discovers, registers if needed, and returns the authorization URL the owner must open. */
  async startLogin(id: string, server: HttpServerConfig, redirectUrl = this.opts.redirectUrl): Promise<URL> {
    const provider = new StoredOAuthProvider(this.providerOptions(id, server, redirectUrl), { kind: "login", state: randomBytes(24).toString("base64url") });
    let result;
    try {
      result = await auth(provider, { serverUrl: server.url, fetchFn: this.opts.fetchFn });
    } catch (err) {
      throw new OAuthLoginError(`the OAuth login to the MCP server "${id}" could not start: ${describeError(err)}`, { cause: err });
    }
    if (result !== "REDIRECT" || !provider.authorizationUrl) throw new OAuthLoginError(`the MCP server "${id}" issued tokens without a login`);
    return provider.authorizationUrl;
  }

  /** Exchanges the code the browser brought back; returns the server's id. */
  async finishLogin(servers: Readonly<Record<string, HttpServerConfig>>, state: string, code: string): Promise<string> {
    const pending = await this.opts.credentials.takePending(state);
    if (!pending) throw new OAuthLoginError("this login link is unknown or older than ten minutes: start the login again");
    const server = servers[pending.serverId];
    if (!server) throw new OAuthLoginError(`the MCP server "${pending.serverId}" is no longer configured`);
    const provider = new StoredOAuthProvider(this.providerOptions(pending.serverId, server, pending.redirectUrl), { kind: "callback", pending });
    try {
      await auth(provider, { serverUrl: server.url, authorizationCode: code, fetchFn: this.opts.fetchFn });
    } catch (err) {
      throw new OAuthLoginError(`the OAuth login to the MCP server "${pending.serverId}" failed: ${describeError(err)}`, { cause: err });
    }
    return pending.serverId;
  }

  /** Revokes the tokens where the server offers it, and forgets them (and the registration) either way. */
  async logout(id: string): Promise<{ hadTokens: boolean; revoked: boolean; error?: string }> {
    const record = await this.opts.credentials.load(id);
    await this.opts.credentials.forget(id);
    const tokens = [record.tokens?.refresh_token, record.tokens?.access_token].filter((t): t is string => !!t);
    // OpenID Connect metadata has no revocation endpoint; OAuth metadata (RFC 8414) may.
    const metadata = record.discovery?.authorizationServerMetadata;
    const endpoint = metadata && "revocation_endpoint" in metadata ? metadata.revocation_endpoint : undefined;
    if (tokens.length === 0 || !endpoint || !record.client) return { hadTokens: tokens.length > 0, revoked: false };
    try {
      for (const token of tokens) await this.revoke(endpoint, token, record.client);
      return { hadTokens: true, revoked: true };
    } catch (err) {
      return { hadTokens: true, revoked: false, error: describeError(err) };
    }
  }

  async state(id: string): Promise<LoginState> {
    const record: OAuthRecord = await this.opts.credentials.load(id);
    return {
      loggedIn: !!record.tokens,
      ...(record.expiresAt === undefined ? {} : { expiresAt: new Date(record.expiresAt).toISOString() }),
      refreshable: !!record.tokens?.refresh_token,
    };
  }

  /** RFC 7009: the token and the client's credentials, as a form. */
  private async revoke(endpoint: string, token: string, client: { client_id: string; client_secret?: string }): Promise<void> {
    const body = new URLSearchParams({ token, client_id: client.client_id, ...(client.client_secret ? { client_secret: client.client_secret } : {}) });
    const response = await this.opts.fetchFn(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    if (!response.ok) throw new Error(`the revocation endpoint answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  }

  private providerOptions(id: string, server: HttpServerConfig, redirectUrl: string): ProviderOptions {
    return { serverId: id, serverUrl: server.url, credentials: this.opts.credentials, clock: this.opts.clock, redirectUrl, fetchFn: this.opts.fetchFn };
  }
}
