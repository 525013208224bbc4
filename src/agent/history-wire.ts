/**
 * A session's history put into OpenAI-compatible requests as bytes serialized once per message. Handed the history
 * as prompt messages, the provider converts every one of them into its request form and serializes the body twice
 * (once for the result's `request.body`), on every model call: in a long session that was most of what grew with
 * its length, in CPU and in garbage for the GC (~0.5 MiB a call at 600 short messages). Here the provider is given
 * one placeholder message instead, and its fetch puts in its place the history's request form: each message
 * converted by the provider's own conversion (`@ai-sdk/openai-compatible/internal`, the function its getArgs calls
 * on the whole prompt, message by message) and serialized once, kept per session and grown at its end. A request
 * whose placeholder is not found exactly once fails; it never goes out without its history or with the placeholder.
 * What the AI SDK records as the request (a step's `request.body`, an error's request values) shows the placeholder.
 * history-wire.test.ts checks the bytes against what the provider sends given the whole history.
 */
import { randomBytes } from "node:crypto";
import { convertToOpenAICompatibleChatMessages } from "@ai-sdk/openai-compatible/internal";
import type { LanguageModel } from "ai";
import { requestUrl } from "../infra/http/request-fetch.js";
import { takeHeader, type CallOptions, type PromptMessage } from "./model-call.js";

/** Makes a model call (`call`) with the history inserted at index `at` of its prompt. */
export type HistorySplice = <R>(params: CallOptions, at: number, call: (params: CallOptions) => PromiseLike<R>) => Promise<R>;

/** Which call's history a request carries; taken off before the request leaves the process. */
const HISTORY_HEADER = "x-switchboard-history";

const byModel = new WeakMap<object, HistoryWire>();

/** The HistoryWire whose fetch `model` was made with, if any (only the model createModel returned is known). */
export function historyWireOf(model: LanguageModel): HistoryWire | undefined {
  return typeof model === "string" ? undefined : byModel.get(model);
}

export class HistoryWire {
  /**
   * Stands for the history in the prompt. No text of a user's or a tool's can be taken for its JSON: a quote inside
   * a string value is escaped. The random part keeps other JSON in the body (options, schemas) from matching it.
   */
  readonly #placeholder: PromptMessage = { role: "user", content: [{ type: "text", text: `switchboard-history-${randomBytes(16).toString("hex")}` }] };
  /** The placeholder in the provider's serialized body. */
  readonly #placeholderJson = JSON.stringify(convertToOpenAICompatibleChatMessages([this.#placeholder])[0]);
  readonly #calls = new Map<string, Buffer>();
  #lastCall = 0;

  constructor(private readonly inner: typeof globalThis.fetch) {}

  /** `model`, made with this.fetch, marked as such for historyWireOf. */
  serve<M extends object>(model: M): M {
    byModel.set(model, this);
    return model;
  }

  /** The splice of the first `count` messages of `history`, which may grow later, at its end only. */
  splicer(history: readonly PromptMessage[], count: number): HistorySplice {
    let bytes: Buffer | undefined;
    return async (params, at, call) => {
      if ((params.headers as Record<string, string | undefined> | undefined)?.[HISTORY_HEADER] !== undefined) {
        throw new Error("a model call's history was spliced in twice (two withHistoryPrompt wrappers around one model)");
      }
      bytes ??= serialized(history, count);
      // Messages that convert to nothing (none do today) leave nothing to put in.
      if (bytes.length === 0) return call(params);
      const id = String(++this.#lastCall);
      this.#calls.set(id, bytes);
      try {
        return await call({
          ...params,
          prompt: [...params.prompt.slice(0, at), this.#placeholder, ...params.prompt.slice(at)],
          headers: { ...params.headers, [HISTORY_HEADER]: id },
        });
      } finally {
        this.#calls.delete(id);
      }
    };
  }

  /** The provider's fetch: a request without the history header goes out as it is. */
  readonly fetch: typeof globalThis.fetch = (input, init) => {
    const { value: id, headers } = takeHeader(init?.headers, HISTORY_HEADER);
    if (id === undefined) return this.inner(input, init);
    const body = this.#withHistory(id, init?.body);
    if (typeof body === "string") return Promise.reject(new Error(`the session history could not be put into the request to ${requestUrl(input)}: ${body}`));
    return this.inner(input, { ...init, headers, body });
  };

  /** The body with the call's history in place of the placeholder, or what is wrong with it. */
  #withHistory(id: string, body: RequestInit["body"]): Buffer | string {
    const history = this.#calls.get(id);
    if (history === undefined) return "its model call is over";
    if (typeof body !== "string") return "its body is not text";
    const at = body.indexOf(this.#placeholderJson);
    if (at === -1) return "its placeholder is missing";
    const end = at + this.#placeholderJson.length;
    if (body.includes(this.#placeholderJson, end)) return "its placeholder is there more than once";
    return Buffer.concat([Buffer.from(body.slice(0, at)), history, Buffer.from(body.slice(end))]);
  }
}

/**
 * The first `count` messages' request forms, comma-separated: what goes where the placeholder was in the messages
 * array. Kept per history array, which grows at its end from turn to turn, so a turn serializes only its new
 * messages. In a buffer rather than a string: a string of the whole history kept from turn to turn would be copied
 * by every young-generation GC it lives through.
 */
function serialized(history: readonly PromptMessage[], count: number): Buffer {
  let run = runs.get(history);
  if (run === undefined) {
    run = new SerializedRun();
    runs.set(history, run);
  }
  while (run.count < count) run.append(history[run.count]!);
  return run.bytes(count);
}

const runs = new WeakMap<readonly PromptMessage[], SerializedRun>();

/** Messages' request forms, comma-separated, in a buffer grown in place (doubling). */
class SerializedRun {
  // Its own memory, not a slice of the shared pool small buffers come from (it is kept for the session); grown
  // from the size first needed.
  #buffer = Buffer.allocUnsafeSlow(0);
  /** Where each message's form ends in the buffer. */
  readonly #ends: number[] = [];

  get count(): number {
    return this.#ends.length;
  }

  append(message: PromptMessage): void {
    // One prompt message can be several in the request (tool results); the conversion keeps no state between messages.
    const form = convertToOpenAICompatibleChatMessages([message]).map((converted) => JSON.stringify(converted)).join(",");
    let length = this.#ends.at(-1) ?? 0;
    if (form !== "") {
      const comma = length > 0 ? 1 : 0;
      const needed = length + comma + Buffer.byteLength(form);
      if (needed > this.#buffer.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(needed, 2 * this.#buffer.length));
        this.#buffer.copy(grown, 0, 0, length);
        this.#buffer = grown;
      }
      if (comma) this.#buffer[length++] = COMMA;
      length += this.#buffer.write(form, length);
    }
    this.#ends.push(length);
  }

  /** The first `count` messages' forms; later appends do not change them. */
  bytes(count: number): Buffer {
    return this.#buffer.subarray(0, count === 0 ? 0 : this.#ends[count - 1]);
  }
}

const COMMA = 0x2c;
