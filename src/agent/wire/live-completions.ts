/**
 * Watched model steps for OpenAI-compatible endpoints without the provider's stream pipeline. The provider's
 * doStream reads an answer through five web streams with a promise chain per event and layer, which on Node 20
 * cost ~0.45 ms of CPU more per call than the same call unwatched (`npm run bench llm-call`). Here a watched step
 * calls doGenerate with the provider's options asking the endpoint to stream; the provider's fetch, told by a
 * header which step the request is for, passes the text on as it arrives and answers doGenerate with the
 * completion put together from the chunks (CompletionAssembly). Any other answer (tool calls, an error event, one
 * cut short) is answered again, from the recorded bytes and without a second request, through the provider's own
 * doStream: its parsing of tool calls and errors is the one that counts.
 */
import type { LanguageModel } from "ai";
import { createParser } from "eventsource-parser";
import { BareResponse } from "./bare-response.js";
import { CompletionAssembly } from "./completion-assembly.js";
import { takeHeader, type CallOptions, type ModelV3, type WrapGenerate } from "./model-call.js";

export type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
export type StreamResult = Awaited<ReturnType<Parameters<WrapGenerate>[0]["doStream"]>>;

/** Names the watched step a request is for; taken off before the request leaves the process. */
const STEP_HEADER = "x-switchboard-watched-step";
/** Asked of the endpoint through the provider's options, which it copies into the request body. */
const STREAMED = { stream: true, stream_options: { include_usage: true } };

interface WatchedStep {
  onText: (delta: string) => void;
  /** The streamed answer, kept for the provider's doStream when it was not a plain one. */
  recorded?: { status: number; headers: Headers; body: string };
}

/** Thrown by the fetch to doGenerate's caller: the answer was recorded for doStream. */
class NotPlain extends Error {}

const byModel = new WeakMap<object, LiveCompletions>();

/**
 * The LiveCompletions whose fetch `model` was made with, if any. Only the model createModel returned is known
 * here: a wrapper put around it before watchedModel (rather than outside) turns the live path off for it.
 */
export function liveCompletionsOf(model: LanguageModel): LiveCompletions | undefined {
  return typeof model === "string" ? undefined : byModel.get(model);
}

export class LiveCompletions {
  readonly #steps = new Map<string, WatchedStep>();
  #lastStep = 0;

  /** `optionsKey`: the provider's name, under which its options are passed into the request body. */
  constructor(
    private readonly inner: typeof globalThis.fetch,
    private readonly optionsKey: string,
  ) {}

  /** `model`, made with this.fetch, marked as such for liveCompletionsOf. */
  serve<M extends ModelV3>(model: M): M {
    byModel.set(model, this);
    return model;
  }

  /**
   * One step of `model` (made with this.fetch), its text passed to `onText` as it arrives; `replay` reads the
   * provider's stream of an answer that is not plain text (the text in it was passed on already).
   */
  async step(model: ModelV3, params: CallOptions, onText: (delta: string) => void, replay: (stream: StreamResult) => Promise<GenerateResult>): Promise<GenerateResult> {
    const id = String(++this.#lastStep);
    this.#steps.set(id, { onText });
    const { providerOptions } = params;
    const tagged = {
      ...params,
      headers: { ...params.headers, [STEP_HEADER]: id },
      providerOptions: { ...providerOptions, [this.optionsKey]: { ...providerOptions?.[this.optionsKey], ...STREAMED } },
    };
    try {
      try {
        return await model.doGenerate(tagged);
      } catch (err) {
        if (!(err instanceof NotPlain)) throw err;
        return await replay(await model.doStream(tagged));
      }
    } finally {
      this.#steps.delete(id);
    }
  }

  /** The provider's fetch: a request without the step header goes out as it is. */
  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const { value: id, headers } = takeHeader(init?.headers, STEP_HEADER);
    const step = id === undefined ? undefined : this.#steps.get(id);
    if (step === undefined) return this.inner(input, id === undefined ? init : { ...init, headers });
    if (step.recorded) return new BareResponse(step.recorded.body, step.recorded.status, "", step.recorded.headers);
    const response = await this.inner(input, { ...init, headers });
    // An error status, or an endpoint that answered in one piece (JSON): doGenerate reads it as it would have.
    // Anything else is read as events, whatever its content type says, as the provider's doStream reads it.
    const json = response.headers.get("content-type")?.includes("json") === true;
    if (!response.ok || json || response.body === null) return response;
    return assembled(response, response.body, step);
  };
}

async function assembled(response: Response, body: ReadableStream<Uint8Array>, step: WatchedStep): Promise<Response> {
  const assembly = new CompletionAssembly(step.onText);
  const parser = createParser({ onEvent: (event) => assembly.add(event.data) });
  const decoder = new TextDecoder();
  let raw = "";
  // Read to the end with a reader that is never released: releasing one (as for-await does) rejects a promise
  // of the reader's with a TypeError on Node 20, which costs a stack trace and the unhandled-rejection check.
  const reader = body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const text = decoder.decode(read.value, { stream: true });
      raw += text;
      parser.feed(text);
    }
  } catch (err) {
    // A watcher that throws leaves the rest of the answer unread: the request ends now, not at its timeout.
    await reader.cancel(err).catch(() => {});
    throw err;
  }
  const rest = decoder.decode();
  raw += rest;
  parser.feed(rest);
  const completion = assembly.completion();
  const headers = new Headers(response.headers);
  if (completion === undefined) {
    step.recorded = { status: response.status, headers, body: raw };
    throw new NotPlain("the answer is read by the provider's stream parser");
  }
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return new BareResponse(JSON.stringify(completion), response.status, response.statusText, headers);
}
