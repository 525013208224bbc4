/**
 * The SDK's OAuthClientProvider over the CredentialStore. The SDK (client/auth.js) runs the MCP authorization flow:
 * protected-resource metadata, authorization server discovery, dynamic client registration, PKCE, the code
 * exchange and refreshes; this class only says where things are kept and what may happen in each situation:
 *
 * - "connection": the gateway's own session. Tokens are refreshed shortly before they expire; a server that wants a
 *   login nobody has done fails with LoginRequiredError before any discovery or registration is attempted.
 * - "login": an owner starts a login; the authorization URL is captured for them to open.
 * - "callback": the browser came back with a code; the verifier and redirect URL of that login are used.
 */
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import { describeError, LoginRequiredError } from "../errors.js";
import type { CredentialStore, OAuthRecord, PendingLogin } from "./credentials.js";

/** How long before its expiry an access token is replaced. */
export const REFRESH_MARGIN_MS = 60_000;

export type ProviderMode =
  | { kind: "connection"; log: Logger }
  /** `state` ties the browser's return to this login. */
  | { kind: "login"; state: string }
  | { kind: "callback"; pending: PendingLogin }
  /** Used by a connection to refresh: reads the stored tokens as they are. */
  | { kind: "refresh" };

export interface ProviderOptions {
  serverId: string;
  serverUrl: string;
  credentials: CredentialStore;
  clock: Clock;
  redirectUrl: string;
  fetchFn: FetchLike;
}

export class StoredOAuthProvider implements OAuthClientProvider {
  /** Set by a "login" provider once the SDK has built the URL the owner must open. */
  authorizationUrl: URL | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly opts: ProviderOptions,
    private readonly mode: ProviderMode,
  ) {}

  get redirectUrl(): string {
    return this.mode.kind === "callback" ? this.mode.pending.redirectUrl : this.opts.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Switchboard",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    if (this.mode.kind !== "login") throw new LoginRequiredError(this.opts.serverId);
    return this.mode.state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { client } = await this.record();
    // A login through another address (the console's, say) registers again with that redirect URL.
    if (this.mode.kind === "login" && client && "redirect_uris" in client && !client.redirect_uris.includes(this.redirectUrl)) return undefined;
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.opts.credentials.update(this.opts.serverId, (record) => ({ ...record, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const { kind } = this.mode;
    if (kind === "login" || kind === "callback") return undefined;
    const record = await this.record();
    if (kind === "connection" && this.expiresSoon(record)) {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
      await this.refreshing;
      return (await this.record()).tokens;
    }
    return record.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresAt = tokens.expires_in === undefined ? undefined : this.opts.clock.now() + tokens.expires_in * 1000;
    await this.opts.credentials.update(this.opts.serverId, ({ expiresAt: _old, ...record }) => ({ ...record, tokens, ...(expiresAt === undefined ? {} : { expiresAt }) }));
  }

  redirectToAuthorization(url: URL): void {
    if (this.mode.kind !== "login") throw new LoginRequiredError(this.opts.serverId);
    this.authorizationUrl = url;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (this.mode.kind !== "login") throw new LoginRequiredError(this.opts.serverId);
    await this.opts.credentials.savePending(this.mode.state, { serverId: this.opts.serverId, codeVerifier, redirectUrl: this.redirectUrl });
  }

  codeVerifier(): string {
    if (this.mode.kind !== "callback") throw new LoginRequiredError(this.opts.serverId);
    return this.mode.pending.codeVerifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.opts.credentials.update(this.opts.serverId, (record) => ({ ...record, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    // The SDK asks for this first whenever the server answered 401: without tokens a connection stops right here,
    // before discovering or registering anything, since only an owner's login can help.
    if (this.mode.kind === "login") return undefined;
    const record = await this.record();
    if (this.mode.kind === "connection" && !record.tokens) throw new LoginRequiredError(this.opts.serverId);
    return record.discovery;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") return;
    if (scope === "all") return this.opts.credentials.forget(this.opts.serverId);
    const field = ({ client: "client", tokens: "tokens", discovery: "discovery" } as const)[scope];
    await this.opts.credentials.update(this.opts.serverId, ({ [field]: _dropped, ...record }) => record);
  }

  private record(): Promise<OAuthRecord> {
    return this.opts.credentials.load(this.opts.serverId);
  }

  private expiresSoon(record: OAuthRecord): boolean {
    return !!record.tokens?.refresh_token && record.expiresAt !== undefined && record.expiresAt - this.opts.clock.now() < REFRESH_MARGIN_MS;
  }

  /** The SDK's refresh, through a provider that reads the stored tokens as they are. */
  private async refresh(): Promise<void> {
    const refresher = new StoredOAuthProvider(this.opts, { kind: "refresh" });
    try {
      await auth(refresher, { serverUrl: this.opts.serverUrl, fetchFn: this.opts.fetchFn });
    } catch (err) {
      // The old token is still sent; if the server refuses it, its 401 starts the SDK's own attempt.
      if (this.mode.kind === "connection") this.mode.log.warn({ err: describeError(err) }, "MCP OAuth token could not be refreshed before it expires");
    }
  }
}
