/**
 * The QQ bot OpenAPI: the app access token from QQ_TOKEN_URL (`expires_in` comes as a string), kept until shortly
 * before it expires and fetched again when a call is refused with 401, and JSON calls with `Authorization: QQBot
 * <token>`. Failures are QqApiErrors with the HTTP status and QQ's code; never the token.
 */
import { z } from "zod";
import { jsonObjectOf, PlatformApiError, platformFetch } from "../platform-call.js";
import { TokenCache, type IssuedToken } from "../token-cache.js";

/** A failed QQ call; `code` is QQ's `code` (or `err_code`). */
export class QqApiError extends PlatformApiError<number> {
  override readonly name = "QqApiError";
}

/** QQ allows a new token only in the last minute of the old one; both then stay valid for a while. */
const EARLY_REFRESH_MS = 50_000;
const DEFAULT_TIMEOUT_MS = 30_000;

const tokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().positive() });

export interface QqApiOptions {
  apiUrl: string;
  tokenUrl: string;
  appId: string;
  appSecret: string;
  timeoutMs?: number;
  now?: () => number;
}

type Json = Record<string, unknown>;

export class QqApi {
  private readonly token: TokenCache;

  constructor(private readonly opts: QqApiOptions) {
    this.token = new TokenCache(() => this.fetchToken(), EARLY_REFRESH_MS, opts.now);
  }

  call(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<Json> {
    return this.withToken(async (token) => {
      const headers: Record<string, string> = { authorization: `QQBot ${token}`, "x-union-appid": this.opts.appId };
      if (body !== undefined) headers["content-type"] = "application/json";
      return this.request(`${this.opts.apiUrl.replace(/\/+$/, "")}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, `${method} ${path}`);
    });
  }

  /** The token in hand, or a new one. */
  accessToken(): Promise<string> {
    return this.token.get();
  }

  tokenExpiry(): Date | undefined {
    return this.token.expiry();
  }

  private withToken(run: (token: string) => Promise<Json>): Promise<Json> {
    return this.token.use(run, (err) => err instanceof QqApiError && err.httpStatus === 401);
  }

  private async fetchToken(): Promise<IssuedToken> {
    const body = JSON.stringify({ appId: this.opts.appId, clientSecret: this.opts.appSecret });
    const answer = tokenSchema.safeParse(await this.request(this.opts.tokenUrl, { method: "POST", headers: { "content-type": "application/json" }, body }, "POST getAppAccessToken"));
    if (!answer.success) throw new QqApiError("POST getAppAccessToken: no access_token in the answer (check QQ_APP_ID and QQ_APP_SECRET)", null, 200);
    return { value: answer.data.access_token, lifetimeMs: answer.data.expires_in * 1000 };
  }

  private async request(url: string, init: RequestInit, what: string): Promise<Json> {
    const response = await platformFetch(url, init, what, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const json = await jsonObjectOf(response);
    const code = typeof json.code === "number" ? json.code : typeof json.err_code === "number" ? json.err_code : null;
    if (!response.ok || (code !== null && code !== 0)) {
      const detail = code !== null ? `, QQ error ${code}: ${String(json.message ?? "")}` : "";
      throw new QqApiError(`${what}: HTTP ${response.status}${detail}`, code, response.status);
    }
    return json;
  }
}
