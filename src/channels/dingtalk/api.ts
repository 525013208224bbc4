/**
 * DingTalk's server API: the app's access token (`POST /v1.0/oauth2/accessToken`, kept until shortly before its
 * `expireIn` and fetched again when DingTalk refuses it), JSON calls on api.dingtalk.com with the
 * `x-acs-dingtalk-access-token` header, and the older oapi host (media upload with `?access_token=`). Failures are
 * DingtalkApiErrors with the HTTP status and DingTalk's code; never the token.
 */
import { openAsBlob } from "node:fs";
import { z } from "zod";
import { jsonObjectOf, PlatformApiError, platformFetch } from "../platform-call.js";
import { TokenCache, type IssuedToken } from "../token-cache.js";

/** A failed DingTalk call; `code` is DingTalk's (`code` of the new API, `errcode` of oapi). */
export class DingtalkApiError extends PlatformApiError<string> {
  override readonly name = "DingtalkApiError";
}

const EARLY_REFRESH_MS = 5 * 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** oapi errcodes of a token that is expired or invalid. */
const OAPI_TOKEN_ERRORS = new Set(["40014", "42001"]);

const tokenSchema = z.object({ accessToken: z.string().min(1), expireIn: z.coerce.number().positive() });

export interface DingtalkApiOptions {
  apiUrl: string;
  oapiUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  now?: () => number;
}

type Json = Record<string, unknown>;

export class DingtalkApi {
  private readonly token: TokenCache;

  constructor(private readonly opts: DingtalkApiOptions) {
    this.token = new TokenCache(() => this.fetchToken(), EARLY_REFRESH_MS, opts.now);
  }

  /** A call on api.dingtalk.com (`path` such as /v1.0/robot/groupMessages/send). */
  call(method: "POST" | "PUT" | "GET", path: string, body?: unknown): Promise<Json> {
    const url = `${trim(this.opts.apiUrl)}${path}`;
    return this.withToken(async (token) => {
      const init: RequestInit = { method, headers: { "x-acs-dingtalk-access-token": token, "content-type": "application/json" } };
      return this.request(url, body === undefined ? init : { ...init, body: JSON.stringify(body) }, `${method} ${path}`);
    });
  }

  /** Uploads a file to oapi's media store: answers its media_id. */
  async upload(type: "image" | "voice" | "file", path: string, name: string): Promise<string> {
    const blob = await openAsBlob(path);
    const result = await this.withToken((token) => {
      const form = new FormData();
      form.append("media", blob, name);
      const url = `${trim(this.opts.oapiUrl)}/media/upload?access_token=${encodeURIComponent(token)}&type=${type}`;
      return this.request(url, { method: "POST", body: form }, "POST /media/upload");
    });
    if (typeof result.media_id !== "string") throw new DingtalkApiError("POST /media/upload: no media_id in the answer", null, 200);
    return result.media_id;
  }

  /** POSTs to a message's session webhook (no token: the URL is the credential). */
  webhook(url: string, body: unknown): Promise<Json> {
    return this.request(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, "POST session webhook");
  }

  /** GETs bytes from a URL DingTalk handed out (a file's download URL). */
  async bytes(url: string): Promise<Buffer> {
    const response = await this.fetch(url, {}, "GET download URL");
    if (!response.ok) throw new DingtalkApiError(`GET download URL: HTTP ${response.status}`, null, response.status);
    return Buffer.from(await response.arrayBuffer());
  }

  tokenExpiry(): Date | undefined {
    return this.token.expiry();
  }

  private withToken(run: (token: string) => Promise<Json>): Promise<Json> {
    return this.token.use(run, isTokenRefusal);
  }

  /** The access token in hand, or a new one. */
  accessToken(): Promise<string> {
    return this.token.get();
  }

  private async fetchToken(): Promise<IssuedToken> {
    const url = `${trim(this.opts.apiUrl)}/v1.0/oauth2/accessToken`;
    const body = JSON.stringify({ appKey: this.opts.clientId, appSecret: this.opts.clientSecret });
    const answer = tokenSchema.safeParse(await this.request(url, { method: "POST", headers: { "content-type": "application/json" }, body }, "POST /v1.0/oauth2/accessToken"));
    if (!answer.success) throw new DingtalkApiError("POST /v1.0/oauth2/accessToken: no accessToken in the answer", null, 200);
    return { value: answer.data.accessToken, lifetimeMs: answer.data.expireIn * 1000 };
  }

  private async request(url: string, init: RequestInit, what: string): Promise<Json> {
    const response = await this.fetch(url, init, what);
    const json = await jsonObjectOf(response);
    const code = typeof json.code === "string" ? json.code : json.errcode !== undefined && json.errcode !== 0 ? String(json.errcode) : null;
    if (!response.ok || (json.errcode !== undefined && json.errcode !== 0)) {
      const detail = code !== null ? `, DingTalk error ${code}: ${String(json.message ?? json.errmsg ?? "")}` : "";
      throw new DingtalkApiError(`${what}: HTTP ${response.status}${detail}`, code, response.status);
    }
    return json;
  }

  private fetch(url: string, init: RequestInit, what: string): Promise<Response> {
    return platformFetch(url, init, what, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

}

function isTokenRefusal(err: unknown): boolean {
  return err instanceof DingtalkApiError && (err.httpStatus === 401 || (err.code !== null && OAPI_TOKEN_ERRORS.has(err.code)));
}

function trim(url: string): string {
  return url.replace(/\/+$/, "");
}
