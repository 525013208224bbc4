/**
 * The parts of an OpenAI-compatible request that are the same from call to call put in as bytes serialized once:
 * the session's history and the tool definitions. Handed them as call options, the provider converts every history
 * message and every tool into its request form and serializes the body twice (once for the result's
 * `request.body`), on every model call: in a long session the history was most of what grew with its length, and
 * the 27 tools are 14 KB of JSON a call (two walks of it and ~100 KiB of garbage). Here the provider is given one
 * placeholder for each (a message, a tool), a header names the call, and its fetch puts in each placeholder's place
 * the part's request form, converted by the provider's own functions (`@ai-sdk/openai-compatible/internal`, those
 * its getArgs calls). A history's forms are kept per session and grown at its end (history-forms.ts); a tool set's
 * while the same definitions are asked for (tool-forms.ts). A request whose placeholder is not found exactly once
 * fails; it never goes out without the part or with the placeholder. What the AI SDK records as the request (a
 * step's `request.body`, an error's request values) shows the placeholders. request-wire.test.ts checks the bytes
 * against what the provider sends.
 */
import { randomBytes } from "node:crypto";
import { convertToOpenAICompatibleChatMessages, prepareTools } from "@ai-sdk/openai-compatible/internal";
import type { LanguageModel } from "ai";
import { requestUrl } from "./request-fetch.js";
import { historyForms } from "./history-forms.js";
import { aroundCalls, takeHeader, type CallOptions, type PromptMessage } from "./model-call.js";
import { ToolForms, type CallTool, type FunctionTool } from "./tool-forms.js";

/** Makes a model call (`call`) with the history inserted at index `at` of its prompt. */
export type HistorySplice = <R>(params: CallOptions, at: number, call: (params: CallOptions) => PromiseLike<R>) => Promise<R>;

const byModel = new WeakMap<object, RequestWire>();

/** The RequestWire whose fetch `model` was made with, if any (only the model createModel returned is known). */
export function requestWireOf(model: LanguageModel): RequestWire | undefined {
  return typeof model === "string" ? undefined : byModel.get(model);
}

export class RequestWire {
  /** Stands for the history in the prompt. */
  readonly #historyPlaceholder: PromptMessage = { role: "user", content: [{ type: "text", text: `switchboard-history-${nonce()}` }] };
  readonly #history = new WirePart({
    what: "session history",
    wrapper: "withHistoryPrompt",
    header: "x-switchboard-history",
    placeholderJson: JSON.stringify(convertToOpenAICompatibleChatMessages([this.#historyPlaceholder])[0]),
  });
  /** Stands for the tools in the call's tool list. */
  readonly #toolsPlaceholder: FunctionTool = { type: "function", name: `switchboard-tools-${nonce()}`, inputSchema: {} };
  readonly #tools = new WirePart({
    what: "tool definitions",
    wrapper: "withTools",
    header: "x-switchboard-tools",
    placeholderJson: JSON.stringify(prepareTools({ tools: [this.#toolsPlaceholder] }).tools![0]),
  });
  readonly #toolForms = new ToolForms();

  constructor(private readonly inner: typeof globalThis.fetch) {}

  /** `model`, made with this.fetch, marked as such for requestWireOf. */
  serve<M extends object>(model: M): M {
    byModel.set(model, this);
    return model;
  }

  /** The splice of the first `count` messages of `history`, which may grow later, at its end only. */
  splicer(history: readonly PromptMessage[], count: number): HistorySplice {
    let bytes: Buffer | undefined;
    return async (params, at, call) => {
      const forms = (bytes ??= historyForms(history, count));
      // Messages that convert to nothing (none do today) leave nothing to put in.
      if (forms.length === 0) return call(params);
      const prompt = [...params.prompt.slice(0, at), this.#historyPlaceholder, ...params.prompt.slice(at)];
      return this.#history.around({ ...params, prompt }, () => forms, call);
    };
  }

  /**
   * `model` with each call's tool definitions put in as bytes. `model` must end in the model this wire serves
   * (requestWireOf of it answers this wire): with any other, the placeholder tool would reach the endpoint in the
   * tools' place. A call with a tool that is not a function (a provider's own) is passed on as it is.
   */
  withTools(model: LanguageModel): LanguageModel {
    if (typeof model === "string" || model.specificationVersion !== "v3") return model;
    return aroundCalls(model, (params, call) => {
      const { tools } = params;
      if (tools === undefined || tools.length === 0 || !tools.every(isFunctionTool)) return Promise.resolve(call(params));
      return this.#tools.around({ ...params, tools: [this.#toolsPlaceholder] }, () => this.#toolForms.of(tools), call);
    });
  }

  /** The provider's fetch: a request without the wire's headers goes out as it is. */
  readonly fetch: typeof globalThis.fetch = (input, init) => {
    const history = takeHeader(init?.headers, this.#history.opts.header);
    const tools = takeHeader(history.headers, this.#tools.opts.header);
    const named: Array<{ part: WirePart; id: string }> = [];
    if (history.value !== undefined) named.push({ part: this.#history, id: history.value });
    if (tools.value !== undefined) named.push({ part: this.#tools, id: tools.value });
    if (named.length === 0) return this.inner(input, init);
    const body = spliced(init?.body, named);
    if (!Buffer.isBuffer(body)) return Promise.reject(new Error(`the ${body.what} could not be put into the request to ${requestUrl(input)}: ${body.reason}`));
    return this.inner(input, { ...init, headers: tools.headers, body });
  };
}

interface PartOptions {
  /** What the part is, for errors. */
  what: string;
  /** The function that splices it, for errors. */
  wrapper: string;
  /** Names the call whose bytes a request gets; taken off before the request leaves the process. */
  header: string;
  /**
   * The placeholder as the provider serializes it. No text of a user's or a tool's can be taken for it: a quote
   * inside a string value is escaped. Its random part keeps other JSON in the body from matching.
   */
  placeholderJson: string;
}

/** One part a request gets as bytes: the header that names the call and the placeholder that marks the place. */
class WirePart {
  readonly #calls = new Map<string, Buffer>();
  #lastCall = 0;

  constructor(readonly opts: PartOptions) {}

  /**
   * `call` with `withPlaceholder`, whose request gets the part's bytes in the placeholder's place while the call
   * lasts. `bytes` is asked for once the call is known to be no second splice of this part.
   */
  async around<R>(withPlaceholder: CallOptions, bytes: () => Buffer, call: (params: CallOptions) => PromiseLike<R>): Promise<R> {
    const { headers } = withPlaceholder;
    const { what, wrapper, header } = this.opts;
    if ((headers as Record<string, string | undefined> | undefined)?.[header] !== undefined) {
      throw new Error(`the ${what} would be spliced into one model call twice (two ${wrapper} wrappers around one model)`);
    }
    const id = String(++this.#lastCall);
    this.#calls.set(id, bytes());
    try {
      return await call({ ...withPlaceholder, headers: { ...headers, [header]: id } });
    } finally {
      this.#calls.delete(id);
    }
  }

  /** Where in `body` the bytes of the call `id` names go, or why they cannot. */
  placeIn(body: string, id: string): Place | string {
    const bytes = this.#calls.get(id);
    if (bytes === undefined) return "its model call is over";
    const { placeholderJson } = this.opts;
    const at = body.indexOf(placeholderJson);
    if (at === -1) return "its placeholder is missing";
    const end = at + placeholderJson.length;
    if (body.includes(placeholderJson, end)) return "its placeholder is there more than once";
    return { at, end, bytes };
  }
}

/** A part's bytes, for the placeholder that is the body's text from `at` to `end`. */
interface Place {
  at: number;
  end: number;
  bytes: Buffer;
}

/**
 * The body with each named call's part in place of its placeholder, or which part could not be put in and why.
 * `named`: at least one part with a call's id.
 */
function spliced(body: RequestInit["body"], named: Array<{ part: WirePart; id: string }>): Buffer | { what: string; reason: string } {
  if (typeof body !== "string") return { what: named.map(({ part }) => part.opts.what).join(" and the "), reason: "its body is not text" };
  const places: Place[] = [];
  for (const { part, id } of named) {
    const place = part.placeIn(body, id);
    if (typeof place === "string") return { what: part.opts.what, reason: place };
    places.push(place);
  }
  places.sort((a, b) => a.at - b.at);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const { at, end, bytes } of places) {
    chunks.push(Buffer.from(body.slice(from, at)), bytes);
    from = end;
  }
  chunks.push(Buffer.from(body.slice(from)));
  return Buffer.concat(chunks);
}

function nonce(): string {
  return randomBytes(16).toString("hex");
}

function isFunctionTool(tool: CallTool): tool is FunctionTool {
  return tool.type === "function";
}
