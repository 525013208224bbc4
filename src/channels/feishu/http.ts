/**
 * The HTTP transport given to the SDK's Client: the SDK's own axios instance with a deadline on every call, and
 * every failure turned into a FeishuApiError carrying the HTTP status and Feishu's business code. Feishu answers
 * many errors with HTTP 200 and `code != 0`, which the SDK resolves as if they were results (uploads even become
 * null), so this is the one place that makes them errors. Errors never carry the request: its headers hold the
 * tenant access token.
 */
import { Readable } from "node:stream";
import * as lark from "@larksuiteoapi/node-sdk";

export class FeishuApiError extends Error {
  override readonly name = "FeishuApiError";

  constructor(
    message: string,
    /** Feishu's business code, when the answer carried one. */
    readonly code: number | null,
    /** null: no answer at all (network error, timeout). */
    readonly httpStatus: number | null,
    /** How long Feishu asked us to wait (rate limits). */
    readonly retryAfterMs: number | null = null,
    cause?: unknown,
  ) {
    super(message, cause !== undefined ? { cause } : {});
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Enough of an error body to read its code; resource downloads answer errors as a stream. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

type RequestOptions = lark.HttpRequestOptions<unknown>;

export function feishuHttp(timeoutMs = DEFAULT_TIMEOUT_MS): lark.HttpInstance {
  const base = lark.defaultHttpInstance;
  const request = async <R>(opts: RequestOptions): Promise<R> => {
    const what = `${(opts.method ?? "GET").toUpperCase()} ${pathOf(opts.url)}`;
    let result: unknown;
    try {
      result = await base.request({ timeout: timeoutMs, ...opts } as Parameters<typeof base.request>[0]);
    } catch (err) {
      throw await errorOf(what, err);
    }
    const failure = businessFields(result);
    if (failure.code !== null && failure.code !== 0) {
      throw new FeishuApiError(`${what}: Feishu error ${failure.code}: ${failure.msg}`, failure.code, 200);
    }
    return result as R;
  };
  const withoutBody = (method: string) => <R>(url: string, opts?: RequestOptions) => request<R>({ ...opts, url, method });
  const withBody = (method: string) => <R>(url: string, data?: unknown, opts?: RequestOptions) =>
    request<R>({ ...opts, url, data, method });
  return {
    request,
    get: withoutBody("GET"),
    delete: withoutBody("DELETE"),
    head: withoutBody("HEAD"),
    options: withoutBody("OPTIONS"),
    post: withBody("POST"),
    put: withBody("PUT"),
    patch: withBody("PATCH"),
  };
}

/** Only the path: the query may carry ids, never worth a log line. */
function pathOf(url: string | undefined): string {
  if (!url) return "?";
  try {
    return new URL(url).pathname;
  } catch {
    return url.split("?")[0] ?? url;
  }
}

interface AxiosLikeError {
  code?: string;
  message?: string;
  response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
}

async function errorOf(what: string, err: unknown): Promise<FeishuApiError> {
  const { response, code, message } = err as AxiosLikeError;
  if (!response) return new FeishuApiError(`${what}: ${code ?? "network error"}: ${message ?? String(err)}`, null, null, null, err);
  const status = response.status ?? 0;
  const fields = businessFields(await readBody(response.data));
  const detail = fields.code !== null ? `, Feishu error ${fields.code}: ${fields.msg}` : "";
  return new FeishuApiError(`${what}: HTTP ${status}${detail}`, fields.code, status, retryAfterOf(response.headers));
}

function businessFields(body: unknown): { code: number | null; msg: string } {
  if (body === null || typeof body !== "object") return { code: null, msg: "" };
  const { code, msg } = body as { code?: unknown; msg?: unknown };
  return { code: typeof code === "number" ? code : null, msg: typeof msg === "string" ? msg : "" };
}

async function readBody(data: unknown): Promise<unknown> {
  if (!(data instanceof Readable)) return data;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of data) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > MAX_ERROR_BODY_BYTES) break;
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return null;
  } finally {
    data.destroy();
  }
}

/** Feishu's rate-limit answer says when the window resets (`x-ogw-ratelimit-reset`, seconds). */
function retryAfterOf(headers: Record<string, unknown> | undefined): number | null {
  const value = headers?.["x-ogw-ratelimit-reset"] ?? headers?.["retry-after"];
  const seconds = Number(value);
  return value !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}
