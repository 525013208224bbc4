/**
 * A fetch `Response` made without the WHATWG constructor, for what the model providers' fetch answers. On Node 20
 * that constructor converts its init through webidl, copies the headers and wraps a stream body in a second byte
 * stream: about 0.1 ms of CPU on every model call, for what the AI SDK reads as status, headers and
 * `body.getReader()`. The rest (text, json, clone, ...) is a real Response, made on first use from the body as it is
 * then, so it behaves as fetch's does.
 */

/** What a bare response's body starts as: a stream as received, a text made here, or none. */
export type BareBody = ReadableStream<Uint8Array> | string | null;

export class BareResponse implements Response {
  readonly type: Response["type"] = "basic";
  readonly redirected = false;
  readonly url = "";
  #body: ReadableStream<Uint8Array> | string | null;
  /** The real Response, once something asked for more than the status, the headers and the stream. */
  #whole: Response | undefined;

  /** Throws a RangeError, as Response does, for a status outside 200 to 599. */
  constructor(
    body: BareBody,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
  ) {
    if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError(`Response status ${status} is outside the range [200, 599]`);
    this.#body = body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#whole) return this.#whole.body;
    if (typeof this.#body === "string") this.#body = oneChunk(this.#body);
    return this.#body;
  }

  /** Whether reading began; a stream with a reader counts as begun. */
  get bodyUsed(): boolean {
    if (this.#whole) return this.#whole.bodyUsed;
    return typeof this.#body === "object" && this.#body !== null && this.#body.locked;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#response().arrayBuffer();
  }

  blob(): Promise<Blob> {
    return this.#response().blob();
  }

  formData(): Promise<FormData> {
    return this.#response().formData();
  }

  json(): Promise<unknown> {
    return this.#response().json() as Promise<unknown>;
  }

  text(): Promise<string> {
    return this.#response().text();
  }

  clone(): Response {
    return this.#response().clone();
  }

  #response(): Response {
    this.#whole ??= new Response(this.#body, { status: this.status, statusText: this.statusText, headers: this.headers });
    return this.#whole;
  }
}

const encoder = new TextEncoder();

/** `text` as a stream of one chunk. */
function oneChunk(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(text));
      controller.close();
    },
  });
}
