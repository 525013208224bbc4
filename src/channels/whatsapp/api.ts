/**
 * The Graph API calls the channel makes, over fetch. Meta answers every failure as
 * `{ error: { message, type, code, error_subcode, error_data: { details }, fbtrace_id } }`; GraphError keeps the
 * code, which says more than the HTTP status (131047: outside the 24-hour window, 131056: pair rate limit).
 */
import { httpFailure, networkFailure, SendError, type SendFailure } from "../../core/send-error.js";

const CALL_TIMEOUT_MS = 30_000;

/** Error codes that mean "slow down": app, account, throughput and pair rate limits, and spam limiting. */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056]);
/** "Something went wrong" and "service unavailable": nothing was sent, a later try may work. */
const TRANSIENT_CODES = new Set([1, 2, 131000, 131016]);
/** More than 24 hours since the person last wrote: only templates go through. */
export const REENGAGEMENT_CODE = 131047;
/** Invalid or expired access token. */
const TOKEN_CODE = 190;

export class GraphError extends Error {
  override name = "GraphError";
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
  }

  get failure(): SendFailure {
    if (this.code !== undefined && RATE_LIMIT_CODES.has(this.code)) return { kind: "rate_limited" };
    if (this.code !== undefined && TRANSIENT_CODES.has(this.code)) return { kind: "unavailable" };
    return httpFailure(this.status);
  }

  get tokenRefused(): boolean {
    return this.code === TOKEN_CODE || this.status === 401;
  }
}

export interface GraphApiOptions {
  apiUrl: string;
  accessToken: string;
}

export class GraphApi {
  private readonly root: string;

  constructor(private readonly opts: GraphApiOptions) {
    this.root = opts.apiUrl.replace(/\/+$/, "");
  }

  /** A JSON call (or multipart, for a FormData body); resolves with the parsed answer. */
  async call<T>(method: "GET" | "POST" | "DELETE", path: string, body?: object | FormData): Promise<T> {
    const json = body !== undefined && !(body instanceof FormData);
    const response = await fetch(`${this.root}/${path.replace(/^\/+/, "")}`, {
      method,
      headers: { ...this.auth(), ...(json ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: json ? JSON.stringify(body) : body } : {}),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) throw graphErrorOf(response.status, parsed, path);
    return parsed as T;
  }

  auth(): Record<string, string> {
    return { authorization: `Bearer ${this.opts.accessToken}` };
  }
}

/** Any failure of a send as a SendError saying what was being done. */
export function whatsappSendError(err: unknown, what: string): SendError {
  if (err instanceof SendError) return err;
  if (err instanceof GraphError) return new SendError(`WhatsApp: ${what} failed: ${err.message}`, err.failure, { cause: err });
  return new SendError(`WhatsApp: ${what} failed: ${(err as Error).message}`, networkFailure(err), { cause: err });
}

function graphErrorOf(status: number, body: unknown, path: string): GraphError {
  const error = (body as { error?: { message?: unknown; code?: unknown; error_data?: { details?: unknown } } } | null)?.error;
  const code = typeof error?.code === "number" ? error.code : undefined;
  const details = typeof error?.error_data?.details === "string" ? ` (${error.error_data.details})` : "";
  const message = typeof error?.message === "string" ? error.message : `HTTP ${status}`;
  // The path names the call, never the token; it may hold the phone number id, which is no secret.
  return new GraphError(status, code, `${message}${details} [HTTP ${status}${code !== undefined ? `, code ${code}` : ""}, ${path.split("?")[0]}]`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
