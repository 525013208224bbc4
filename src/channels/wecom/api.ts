/**
 * WeCom's server API (`/cgi-bin/...`): the access token from /cgi-bin/gettoken kept for its lifetime and fetched
 * anew when WeCom says it expired or is invalid (42001, 40014), JSON calls that turn a non-zero errcode into a
 * WecomApiError, media upload and download. WeCom answers most errors with HTTP 200 and an errcode. Errors never
 * carry the URL: its query holds the access token.
 */
import { openAsBlob } from "node:fs";
import { z } from "zod";
import { PlatformApiError, platformFetch } from "../platform-call.js";
import { TokenCache, type IssuedToken } from "../token-cache.js";

/** A failed WeCom call; `code` is WeCom's errcode. */
export class WecomApiError extends PlatformApiError<number> {
  override readonly name = "WecomApiError";
}

/** Errcodes meaning "get a new access token and call again". */
const TOKEN_ERRORS = new Set([40014, 42001]);
/** Replaced this long before WeCom's own expiry (7,200 s), so a call never carries a token about to run out. */
const EARLY_REFRESH_MS = 5 * 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;

const tokenSchema = z.object({ errcode: z.number().optional(), errmsg: z.string().optional(), access_token: z.string().optional(), expires_in: z.coerce.number().optional() });
const resultSchema = z.looseObject({ errcode: z.number().optional(), errmsg: z.string().optional() });

export interface WecomApiOptions {
  baseUrl: string;
  corpId: string;
  corpSecret: string;
  timeoutMs?: number;
  /** Injectable clock for the token's lifetime. */
  now?: () => number;
}

export class WecomApi {
  private readonly token: TokenCache;

  constructor(private readonly opts: WecomApiOptions) {
    this.token = new TokenCache(() => this.fetchToken(), EARLY_REFRESH_MS, opts.now);
  }

  /** GET or POST a JSON call; `path` without the access token, which is added. Throws WecomApiError. */
  async call(method: "GET" | "POST", path: string, body?: unknown): Promise<Record<string, unknown>> {
    return this.withToken(path, (url) =>
      this.request(url, method === "GET" ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, path),
    );
  }

  /** Uploads a file as temporary media (kept 3 days): answers its media_id. */
  async upload(type: "image" | "voice" | "video" | "file", path: string, name: string): Promise<string> {
    const blob = await openAsBlob(path);
    const result = await this.withToken(`/cgi-bin/media/upload?type=${type}`, (url) => {
      const form = new FormData();
      form.append("media", blob, name);
      return this.request(url, { method: "POST", body: form }, "/cgi-bin/media/upload");
    });
    if (typeof result.media_id !== "string") throw new WecomApiError("/cgi-bin/media/upload: no media_id in the answer", null, 200);
    return result.media_id;
  }

  /** Downloads temporary media by its MediaId; WeCom answers a JSON error instead of the bytes when it cannot. */
  async download(mediaId: string): Promise<{ bytes: Buffer; type: string | null }> {
    return this.withToken(`/cgi-bin/media/get?media_id=${encodeURIComponent(mediaId)}`, async (url) => {
      const response = await this.fetch(url, {}, "/cgi-bin/media/get");
      const type = response.headers.get("content-type");
      if (type?.includes("json") || type?.startsWith("text/plain")) this.check(await this.parse(response, "/cgi-bin/media/get"), "/cgi-bin/media/get");
      if (!response.ok) throw new WecomApiError(`/cgi-bin/media/get: HTTP ${response.status}`, null, response.status);
      return { bytes: Buffer.from(await response.arrayBuffer()), type };
    });
  }

  /** When the token in hand runs out (with the early margin); undefined before the first call. */
  tokenExpiry(): Date | undefined {
    return this.token.expiry();
  }

  private withToken<T>(path: string, run: (url: string) => Promise<T>): Promise<T> {
    const url = (token: string) => `${this.opts.baseUrl.replace(/\/+$/, "")}${path}${path.includes("?") ? "&" : "?"}access_token=${encodeURIComponent(token)}`;
    return this.token.use((token) => run(url(token)), (err) => err instanceof WecomApiError && err.code !== null && TOKEN_ERRORS.has(err.code));
  }

  private async fetchToken(): Promise<IssuedToken> {
    const { baseUrl, corpId, corpSecret } = this.opts;
    const query = new URLSearchParams({ corpid: corpId, corpsecret: corpSecret });
    const answer = tokenSchema.parse(this.check(await this.parse(await this.fetch(`${baseUrl.replace(/\/+$/, "")}/cgi-bin/gettoken?${query}`, {}, "/cgi-bin/gettoken"), "/cgi-bin/gettoken"), "/cgi-bin/gettoken"));
    if (!answer.access_token) throw new WecomApiError("/cgi-bin/gettoken: no access_token in the answer", null, 200);
    return { value: answer.access_token, lifetimeMs: (answer.expires_in ?? 7_200) * 1000 };
  }

  private async request(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
    const response = await this.fetch(url, init, what);
    return this.check(await this.parse(response, what), what);
  }

  private fetch(url: string, init: RequestInit, what: string): Promise<Response> {
    return platformFetch(url, init, what, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }


  private async parse(response: Response, what: string): Promise<Record<string, unknown>> {
    const body = (await response.json().catch(() => null)) as unknown;
    const parsed = resultSchema.safeParse(body);
    if (!response.ok || !parsed.success) {
      const code = parsed.success ? (parsed.data.errcode ?? null) : null;
      throw new WecomApiError(`${what}: HTTP ${response.status}${code !== null ? `, errcode ${code}` : ""}`, code, response.status);
    }
    return parsed.data;
  }

  private check(result: Record<string, unknown>, what: string): Record<string, unknown> {
    const code = typeof result.errcode === "number" ? result.errcode : 0;
    if (code !== 0) throw new WecomApiError(`${what}: WeCom error ${code}: ${String(result.errmsg ?? "")}`, code, 200);
    return result;
  }
}
