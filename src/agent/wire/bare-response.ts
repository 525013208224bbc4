/**
 * A fetch `Response` made without the WHATWG constructor, for what the model providers' fetch answers. On Node 20
 * that constructor converts its init through webidl, copies the headers and wraps a stream body in a second byte
 * stream: about 0.1 ms of CPU on every model call, for what the AI SDK reads as status, headers and
 * `body.getReader()`. The rest (text, json, clone, ...) is a real Response, made on first use from the body as it is
 * then, so it behaves as fetch's does.
 */

import { Readable } from "node:stream";

/** What a bare response's body starts as: a stream as received, a text made here, or none. */
export type BareBody = ReadableStream<Uint8Array> | string | null;

export class BareResponse implements Response {
  readonly type: Response["type"] = "default";
  readonly redirected = false;
  readonly url = "";
  #body: BareBody;
  /** The real Response, once something asked for more than the status, the headers and the stream. */
  #whole: Response | undefined;

  /** Throws a RangeError, as Response does, for a status outside 200 to 599. */
  constructor(
    body: BareBody,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
  ) {
    if (!(status >= 200 && status <= 599)) throw new RangeError(`Response status ${status} is outside the range [200, 599]`);
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

  /** Whether the body was read from or cancelled. */
  get bodyUsed(): boolean {
    if (this.#whole) return this.#whole.bodyUsed;
    // Node's isDisturbed takes web streams too; its types name only Node's.
    return typeof this.#body === "object" && this.#body !== null && Readable.isDisturbed(this.#body as unknown as NodeJS.ReadableStream);
  }

  // Async, so that a body already read or locked rejects, as with fetch, rather than throwing where they are called.
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#response().arrayBuffer();
  }

  async blob(): Promise<Blob> {
    return this.#response().blob();
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.#response().arrayBuffer());
  }

  async formData(): Promise<FormData> {
    return this.#response().formData();
  }

  async json(): Promise<unknown> {
    return this.#response().json();
  }

  async text(): Promise<string> {
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
