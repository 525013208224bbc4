/**
 * The parts of an OpenAI-compatible request that are the same from call to call put in as bytes serialized once:
 * the session's history and the tool definitions. Handed them as call options, the provider converts every history
 * message and every tool into its request form and serializes the body twice (once for the result's
 * `request.body`), on every model call: in a long session the history was most of what grew with its length, and
 * the 27 tools are 14 KB of JSON a call (two walks of it and ~100 KiB of garbage). Here the provider is given one
 * placeholder for each (a message, a tool), a header names the call, and its fetch puts in each placeholder's place
 * the part's request form, converted by the provider's own functions (`@ai-sdk/openai-compatible/internal`, those
 * its getArgs calls). A history's forms are kept per session and grown at its end; a tool set's while the same
 * definitions are asked for. A request whose placeholder is not found exactly once fails; it never goes out without
 * the part or with the placeholder. What the AI SDK records as the request (a step's `request.body`, an error's
 * request values) shows the placeholders. request-wire.test.ts checks the bytes against what the provider sends.
 */
import { randomBytes } from "node:crypto";
import { convertToOpenAICompatibleChatMessages, prepareTools } from "@ai-sdk/openai-compatible/internal";
import { wrapLanguageModel, type LanguageModel } from "ai";
import { requestUrl } from "../infra/http/request-fetch.js";
import { takeHeader, type CallOptions, type PromptMessage } from "./model-call.js";

/** Makes a model call (`call`) with the history inserted at index `at` of its prompt. */
export type HistorySplice = <R>(params: CallOptions, at: number, call: (params: CallOptions) => PromiseLike<R>) => Promise<R>;

type CallTool = NonNullable<CallOptions["tools"]>[number];
type FunctionTool = Extract<CallTool, { type: "function" }>;

const byModel = new WeakMap<object, RequestWire>();

/** The RequestWire whose fetch `model` was made with, if any (only the model createModel returned is known). */
export function requestWireOf(model: LanguageModel): RequestWire | undefined {
  return typeof model === "string" ? undefined : byModel.get(model);
}

export class RequestWire {
  /** Stands for the history in the prompt. */
  readonly #historyPlaceholder: PromptMessage = { role: "user", content: [{ type: "text", text: `switchboard-history-${nonce()}` }] };
  readonly #history = new WirePart("session history", "x-switchboard-history", JSON.stringify(convertToOpenAICompatibleChatMessages([this.#historyPlaceholder])[0]));
  /** Stands for the tools in the call's tool list. */
  readonly #toolsPlaceholder: FunctionTool = { type: "function", name: `switchboard-tools-${nonce()}`, inputSchema: {} };
  readonly #tools = new WirePart("tool definitions", "x-switchboard-tools", JSON.stringify(prepareTools({ tools: [this.#toolsPlaceholder] }).tools![0]));
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
    return (params, at, call) => {
      bytes ??= historyForms(history, count);
      // Messages that convert to nothing (none do today) leave nothing to put in.
      if (bytes.length === 0) return Promise.resolve(call(params));
      const prompt = [...params.prompt.slice(0, at), this.#historyPlaceholder, ...params.prompt.slice(at)];
      return this.#history.around(params, { ...params, prompt }, bytes, call);
    };
  }

  /**
   * `model` (one that calls a model made with this.fetch) with each call's tool definitions put in as bytes. A call
   * with a tool that is not a function (a provider's own) is passed on as it is.
   */
  withTools(model: LanguageModel): LanguageModel {
    if (typeof model === "string" || model.specificationVersion !== "v3") return model;
    const splice = <R>(params: CallOptions, call: (params: CallOptions) => PromiseLike<R>): Promise<R> => {
      const { tools } = params;
      if (tools === undefined || tools.length === 0 || !tools.every(isFunctionTool)) return Promise.resolve(call(params));
      return this.#tools.around(params, { ...params, tools: [this.#toolsPlaceholder] }, this.#toolForms.of(tools), call);
    };
    return wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: "v3",
        wrapGenerate: ({ params, model: inner }) => splice(params, (spliced) => inner.doGenerate(spliced)),
        wrapStream: ({ params, model: inner }) => splice(params, (spliced) => inner.doStream(spliced)),
      },
    });
  }

  /** The provider's fetch: a request without the wire's headers goes out as it is. */
  readonly fetch: typeof globalThis.fetch = (input, init) => {
    const history = takeHeader(init?.headers, this.#history.header);
    const tools = takeHeader(history.headers, this.#tools.header);
    const named = [];
    if (history.value !== undefined) named.push({ part: this.#history, id: history.value });
    if (tools.value !== undefined) named.push({ part: this.#tools, id: tools.value });
    if (named.length === 0) return this.inner(input, init);
    const body = spliced(init?.body, named);
    if (!Buffer.isBuffer(body)) return Promise.reject(new Error(`the ${body.what} could not be put into the request to ${requestUrl(input)}: ${body.reason}`));
    return this.inner(input, { ...init, headers: tools.headers, body });
  };
}

/** One part a request gets as bytes: the header that names the call and the placeholder that marks the place. */
class WirePart {
  readonly #calls = new Map<string, Buffer>();
  #lastCall = 0;

  /**
   * `placeholderJson`: the placeholder as the provider serializes it. No text of a user's or a tool's can be taken
   * for it: a quote inside a string value is escaped. Its random part keeps other JSON in the body from matching.
   */
  constructor(
    readonly what: string,
    readonly header: string,
    readonly placeholderJson: string,
  ) {}

  /** `call` with `withPlaceholder`, whose request gets `bytes` in the placeholder's place while the call lasts. */
  async around<R>(params: CallOptions, withPlaceholder: CallOptions, bytes: Buffer, call: (params: CallOptions) => PromiseLike<R>): Promise<R> {
    if ((params.headers as Record<string, string | undefined> | undefined)?.[this.header] !== undefined) {
      throw new Error(`a model call's ${this.what} were spliced in twice (two wrappers around one model)`);
    }
    const id = String(++this.#lastCall);
    this.#calls.set(id, bytes);
    try {
      return await call({ ...withPlaceholder, headers: { ...params.headers, [this.header]: id } });
    } finally {
      this.#calls.delete(id);
    }
  }

  /** Where in `body` the bytes of the call `id` names go, or why they cannot. */
  placeIn(body: string, id: string): Place | string {
    const bytes = this.#calls.get(id);
    if (bytes === undefined) return "its model call is over";
    const at = body.indexOf(this.placeholderJson);
    if (at === -1) return "its placeholder is missing";
    const end = at + this.placeholderJson.length;
    if (body.includes(this.placeholderJson, end)) return "its placeholder is there more than once";
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
  if (typeof body !== "string") return { what: named[0]!.part.what, reason: "its body is not text" };
  const places: Place[] = [];
  for (const { part, id } of named) {
    const place = part.placeIn(body, id);
    if (typeof place === "string") return { what: part.what, reason: place };
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

/** Tool sets whose forms are kept; the sets in use are few (one per kind of sender and chat), this bounds a flood. */
const TOOL_SETS_KEPT = 64;

/**
 * Tool sets' request forms, comma-separated: what goes where the placeholder was in the tools array. Kept while a
 * call asks for the same definitions: the same names, descriptions and strictness, and the same schema objects
 * (the AI SDK hands on the one a tool was made with; a schema is not changed in place once a tool has it).
 */
class ToolForms {
  readonly #kept = new Map<string, { tools: FunctionTool[]; bytes: Buffer }>();

  of(tools: readonly FunctionTool[]): Buffer {
    const key = tools.map((tool) => tool.name).join(" ");
    const kept = this.#kept.get(key);
    if (kept && kept.tools.every((tool, i) => sameDefinition(tool, tools[i]!))) return kept.bytes;
    const forms = prepareTools({ tools: [...tools] }).tools ?? [];
    const bytes = Buffer.from(forms.map((form) => JSON.stringify(form)).join(","));
    if (this.#kept.size >= TOOL_SETS_KEPT) this.#kept.clear();
    this.#kept.set(key, { tools: [...tools], bytes });
    return bytes;
  }
}

/** What the provider's request form of a tool is made of. */
function sameDefinition(a: FunctionTool, b: FunctionTool): boolean {
  return a.name === b.name && a.description === b.description && a.inputSchema === b.inputSchema && a.strict === b.strict;
}

/**
 * The first `count` messages' request forms, comma-separated: what goes where the placeholder was in the messages
 * array. Kept per history array, which grows at its end from turn to turn, so a turn serializes only its new
 * messages. In a buffer rather than a string: a string of the whole history kept from turn to turn would be copied
 * by every young-generation GC it lives through.
 */
function historyForms(history: readonly PromptMessage[], count: number): Buffer {
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
