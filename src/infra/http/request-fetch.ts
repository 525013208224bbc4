/**
 * A `fetch` for the model providers (the AI SDK takes one), made of undici's `request`. Node 20's built-in fetch
 * runs the whole WHATWG fetch algorithm (request and header objects, webidl conversions, its own body stream) around
 * the same undici client: ~0.2 to 0.3 ms of CPU more per call (`npm run bench llm-call`), paid on every model call.
 * (grammY's default, node-fetch over `http.request`, costs about what this does: the Bot API calls keep it.)
 *
 * What a model API needs of fetch, kept: the method, headers and body; the abort signal (its reason is what the
 * call rejects with, as with fetch); a connection failure as fetch's `TypeError("fetch failed")` with the cause,
 * which the AI SDK turns into a retryable "Cannot connect to API" error; up to 5 redirects; a gzip, deflate or br
 * body decoded; connection headers dropped, as fetch drops them. Not kept, since no model API needs them: streamed
 * request bodies, cookies, CORS, caching, credentials modes.
 */
import { STATUS_CODES } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, interceptors, request } from "undici";

const MAX_REDIRECTIONS = 5;
/** Statuses whose response has no body by definition; `Response` refuses one for them. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

export interface RequestFetchOptions {
  /**
   * Each request, its body included, is aborted with a "TimeoutError" after this long, on top of the caller's
   * signal. One timer and one controller per request: AbortSignal.timeout and AbortSignal.any cost several times
   * that on Node 20 (weak references and finalization registries).
   */
  timeoutMs: number;
}

export function requestFetch(options: RequestFetchOptions): typeof globalThis.fetch {
  const dispatcher = new Agent().compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const body = requestBody(init?.body);
    const deadline = new Deadline(options.timeoutMs, init?.signal ?? undefined);
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(url, {
        method: (init?.method ?? "GET") as "GET",
        headers: plainHeaders(init?.headers),
        body,
        signal: deadline.signal,
        dispatcher,
      });
    } catch (err) {
      deadline.clear();
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw new TypeError("fetch failed", { cause: err });
    }
    // The deadline covers the body: it is cleared once the body has been read, failed or been cancelled.
    answer.body.once("close", () => deadline.clear());
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
    const status = answer.statusCode;
    let responseBody: Readable | null = null;
    if (NULL_BODY_STATUSES.has(status) || init?.method === "HEAD") answer.body.resume();
    else responseBody = decoded(answer.body, headers);
    // Node's Response (undici's) takes an async iterable as its body: cheaper than Readable.toWeb's adapter.
    return new Response(responseBody as unknown as ReadableStream | null, { status, statusText: STATUS_CODES[status] ?? "", headers });
  };
}

/** One request's abort signal: the caller's, or the timeout's "TimeoutError", whichever comes first. */
class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => this.#controller.abort(this.#caller?.reason);

  constructor(timeoutMs: number, caller: AbortSignal | undefined) {
    this.#caller = caller;
    this.#timer = setTimeout(() => this.#controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), timeoutMs);
    if (caller?.aborted) this.#onCallerAbort();
    else caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }
}

/** Connection-level headers: fetch drops them, and undici refuses them (a configured extra header could be one). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "expect"]);

function plainHeaders(headers: RequestInit["headers"]): Record<string, string> {
  const plain: Record<string, string> = {};
  if (headers === undefined) return plain;
  // The AI SDK passes a plain object, with undefined for a header it leaves out.
  const entries =
    headers instanceof Headers || Array.isArray(headers) ? [...new Headers(headers as ConstructorParameters<typeof Headers>[0])] : Object.entries(headers as Record<string, string | undefined>);
  for (const [name, value] of entries) if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) plain[name] = value;
  return plain;
}

/** The providers send JSON text; bytes are taken too. */
function requestBody(body: RequestInit["body"]): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError(`request body of an unsupported kind: ${Object.prototype.toString.call(body)}`);
}

/** The body as sent, decoded when the server compressed it (fetch decodes; undici's request does not). */
function decoded(body: Readable, headers: Headers): Readable {
  const codings = (headers.get("content-encoding") ?? "").split(",").map((c) => c.trim().toLowerCase()).filter((c) => c && c !== "identity");
  let stream = body;
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding];
    if (!decoder) break;
    // pipeline passes a failure on, so the body's reader sees it; the callback only keeps it from being thrown.
    stream = pipeline(stream, decoder(), () => {}) as unknown as Readable;
  }
  return stream;
}
