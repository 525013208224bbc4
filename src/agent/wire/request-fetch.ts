/**
 * A `fetch` for the model providers (the AI SDK takes one), made of undici's `request`. Node 20's built-in fetch
 * runs the whole WHATWG fetch algorithm (request and header objects, webidl conversions, its own body stream) around
 * the same undici client: ~0.2 to 0.3 ms of CPU more per call (`npm run bench llm-call`), paid on every model call.
 * For the same reason the answer is a BareResponse: the status, the headers and the body stream as received.
 * (grammY's default, node-fetch over `http.request`, costs about what this does: the Bot API calls keep it.)
 *
 * What a model API needs of fetch, kept: the method, headers and body; the abort signal (its reason is what the
 * call rejects with, as with fetch); a connection failure as fetch's `TypeError("fetch failed")` with the cause,
 * which the AI SDK turns into a retryable "Cannot connect to API" error; a gzip, deflate or br body decoded, as
 * leniently as fetch; a body cancelled by its reader ends the request; connection headers dropped, as fetch drops
 * them. Not kept: redirects are not followed (a 3xx reaches the SDK as a failed call naming the status; following
 * one would send the conversation wherever it points), nor streamed request bodies, cookies, CORS or caching.
 */
import { STATUS_CODES } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { constants, createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent, type Dispatcher } from "undici";
import { type BareBody, BareResponse } from "./bare-response.js";

/** Statuses whose response has no body by definition; `Response` refuses one for them. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** Flushing as fetch does, so a body cut short of its compressed trailer still gives what arrived. */
const ZLIB_LENIENT = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH };
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: () => createGunzip(ZLIB_LENIENT),
  "x-gzip": () => createGunzip(ZLIB_LENIENT),
  deflate: () => createInflate(ZLIB_LENIENT),
  br: () => createBrotliDecompress(BROTLI_LENIENT),
};

export interface RequestFetchOptions {
  /**
   * Each request, its body included, is aborted with a "TimeoutError" after this long, on top of the caller's
   * signal. One timer and one controller per request: AbortSignal.timeout and AbortSignal.any cost several times
   * that on Node 20 (weak references and finalization registries).
   */
  timeoutMs: number;
}

/** The URL a fetch call is for, as a string. */
export function requestUrl(input: Parameters<typeof globalThis.fetch>[0]): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

export function requestFetch(options: RequestFetchOptions): typeof globalThis.fetch {
  const dispatcher = new Agent();
  return async (input, init) => {
    const url = requestUrl(input);
    // A malformed URL throws fetch's TypeError here, before anything is sent.
    const target = new URL(url);
    const body = requestBody(init?.body);
    const deadline = new Deadline(options.timeoutMs, init?.signal ?? undefined);
    let answer: Dispatcher.ResponseData;
    try {
      // The agent's own request, given origin and path: undici's top-level request() copies its options with a
      // spread and three more keys (origin, path, method), a new hidden class for each on every call on Node 20.
      answer = await dispatcher.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: (init?.method ?? "GET") as "GET",
        headers: plainHeaders(init?.headers),
        body,
        signal: deadline.signal,
      });
    } catch (err) {
      deadline.clear();
      if (deadline.signal.aborted) throw deadline.signal.reason;
      // A request undici refuses to send (a malformed header value) is no connection failure to retry.
      if ((err as { code?: unknown }).code === "UND_ERR_INVALID_ARG") throw err;
      throw new TypeError("fetch failed", { cause: err });
    }
    // The deadline covers the body: it is cleared once the body has been read, failed or been cancelled.
    answer.body.once("close", () => deadline.clear());
    // A failure before the first read would otherwise be an uncaught error; the reader still gets it.
    answer.body.on("error", () => {});
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
    const status = answer.statusCode;
    let responseBody: BareBody = null;
    if (NULL_BODY_STATUSES.has(status) || init?.method === "HEAD") answer.body.resume();
    else responseBody = webStream(decoded(answer.body, headers));
    try {
      return new BareResponse(responseBody, status, STATUS_CODES[status] ?? `HTTP ${status}`, headers);
    } catch (err) {
      // A status fetch's Response refuses, as BareResponse does (600 and above): the answer is unusable, and its
      // connection is let go now.
      answer.body.destroy();
      throw new TypeError("fetch failed", { cause: err });
    }
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
    // Like AbortSignal.timeout: a body nobody reads does not keep the process alive.
    this.#timer.unref();
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

/**
 * The body as the web stream the response hands over. Made here rather than by Response from an async iterable:
 * that way costs two web streams a call on Node 20 (~20 us), and cancelling it called the Node stream iterator's
 * `return`, which waits for a pending read (or does nothing before the first): the request went on, holding its
 * connection, until the next chunk or the timeout. Here a cancel destroys the body at once. Unlike fetch's, the
 * stream is not a byte stream: a BYOB reader is refused (the AI SDK reads with the default reader).
 */
function webStream(body: Readable): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel() {
      body.destroy();
    },
  });
}
