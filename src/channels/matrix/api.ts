/**
 * The Client-Server API calls the channel makes, over fetch. Matrix answers a failure as `{ errcode, error }`,
 * with `retry_after_ms` on M_LIMIT_EXCEEDED (HTTP 429); MatrixError keeps both.
 */
import { randomUUID } from "node:crypto";
import { networkFailure, SendError, type SendFailure } from "../../core/send-error.js";

const CALL_TIMEOUT_MS = 30_000;
/** Homeservers keep transaction ids for at least this long (Synapse: 30 minutes); a repeat within it is deduplicated. */
export const TXN_MEMORY_MS = 30 * 60_000;

export class MatrixError extends Error {
  override name = "MatrixError";
  constructor(
    readonly status: number,
    readonly errcode: string,
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }

  get failure(): SendFailure {
    if (this.status === 429 || this.errcode === "M_LIMIT_EXCEEDED") return this.retryAfterMs !== undefined ? { kind: "rate_limited", retryAfterMs: this.retryAfterMs } : { kind: "rate_limited" };
    if (this.status >= 500) return { kind: "unavailable" };
    return { kind: "rejected" };
  }
}

type Query = Record<string, string | number | undefined>;

export interface MatrixCall {
  method: "GET" | "POST" | "PUT";
  path: string;
  query?: Query;
  /** A JSON body, or raw bytes with their content type (uploads). */
  body?: object | { bytes: Buffer; contentType: string };
  signal?: AbortSignal;
  timeoutMs?: number;
}

export class MatrixApi {
  private readonly root: string;

  constructor(
    homeserverUrl: string,
    private readonly accessToken: string,
  ) {
    this.root = homeserverUrl.replace(/\/+$/, "");
  }

  async call<T>({ method, path, query, body, signal, timeoutMs = CALL_TIMEOUT_MS }: MatrixCall): Promise<T> {
    const url = new URL(`${this.root}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const raw = body !== undefined && "bytes" in body ? body : undefined;
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, {
      method,
      headers: { ...this.auth(), "content-type": raw ? raw.contentType : "application/json" },
      ...(body !== undefined ? { body: raw ? raw.bytes : JSON.stringify(body) } : {}),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const parsed = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok) {
      const errcode = typeof parsed?.errcode === "string" ? parsed.errcode : "M_UNKNOWN";
      const reason = typeof parsed?.error === "string" ? parsed.error : `HTTP ${response.status}`;
      const retry = typeof parsed?.retry_after_ms === "number" ? parsed.retry_after_ms : retryAfterHeader(response.headers.get("retry-after"));
      throw new MatrixError(response.status, errcode, `${errcode}: ${reason} [HTTP ${response.status}, ${method} ${path.replace(/\/send\/.*$/, "/send/…")}]`, retry);
    }
    return (parsed ?? {}) as T;
  }

  auth(): Record<string, string> {
    return { authorization: `Bearer ${this.accessToken}` };
  }
}

/** Any failure of a send as a SendError; with a transaction id the homeserver deduplicates, a repeat is safe for a while. */
export function matrixSendError(err: unknown, what: string, idempotent: boolean): SendError {
  if (err instanceof SendError) return err;
  const failure = err instanceof MatrixError ? err.failure : networkFailure(err);
  const message = `Matrix: ${what} failed: ${(err as Error).message}`;
  return new SendError(message, failure, { cause: err, ...(idempotent ? { repeatableUntil: Date.now() + TXN_MEMORY_MS } : {}) });
}

export const enc = encodeURIComponent;

export function freshTxnId(): string {
  return randomUUID();
}

function retryAfterHeader(value: string | null): number | undefined {
  const seconds = Number(value);
  return value !== null && Number.isFinite(seconds) ? seconds * 1000 : undefined;
}
