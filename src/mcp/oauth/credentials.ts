/**
 * What the gateway keeps of each MCP server's OAuth login, in the store's "mcp" namespace, every value sealed by the
 * SecretBox: the client registration, the tokens (with when the access token expires), the discovery results, and
 * logins under way (by their `state`, for ten minutes).
 */
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { SecretBox } from "../../infra/crypto/secret-box.js";
import type { Namespace, Store } from "../../infra/store/types.js";

export interface OAuthRecord {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from its expires_in when it was saved. */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
}

export interface PendingLogin {
  serverId: string;
  codeVerifier: string;
  redirectUrl: string;
}

/** How long a started login waits for the browser to come back. */
export const PENDING_LOGIN_MS = 10 * 60_000;

export class CredentialStore {
  private readonly ns: Namespace<string>;

  private box: Promise<SecretBox> | undefined;

  /** `loadBox` runs on first use: a gateway whose servers never ask for a login makes no key. */
  constructor(
    store: Store,
    private readonly loadBox: () => Promise<SecretBox>,
  ) {
    this.ns = store.namespace<string>("mcp");
  }

  async load(serverId: string): Promise<OAuthRecord> {
    return (await this.read<OAuthRecord>(`oauth:${serverId}`)) ?? {};
  }

  /** Applies `change` to the server's record and stores the result. */
  async update(serverId: string, change: (record: OAuthRecord) => OAuthRecord): Promise<void> {
    await this.ns.set(`oauth:${serverId}`, await this.seal(change(await this.load(serverId))));
  }

  async forget(serverId: string): Promise<void> {
    await this.ns.delete(`oauth:${serverId}`);
  }

  async savePending(state: string, login: PendingLogin): Promise<void> {
    await this.ns.set(`login:${state}`, await this.seal(login), PENDING_LOGIN_MS);
  }

  /** The login started with `state`, removed so that a callback is used once; undefined when unknown or expired. */
  async takePending(state: string): Promise<PendingLogin | undefined> {
    const login = await this.read<PendingLogin>(`login:${state}`);
    if (login) await this.ns.delete(`login:${state}`);
    return login;
  }

  private async read<T>(key: string): Promise<T | undefined> {
    const sealed = await this.ns.get(key);
    return sealed === undefined ? undefined : (JSON.parse((await this.secretBox()).open(sealed)) as T);
  }

  private async seal(value: unknown): Promise<string> {
    return (await this.secretBox()).seal(JSON.stringify(value));
  }

  private secretBox(): Promise<SecretBox> {
    this.box ??= this.loadBox();
    return this.box;
  }
}
