/**
 * A fake OpenAI-compatible LLM server for tests: real HTTP on 127.0.0.1, port 0, speaking the wire format the
 * AI SDK providers expect. POST /v1/chat/completions answers as JSON or as SSE (tool calls streamed as deltas,
 * like OpenAI); POST /v1/messages answers like the Anthropic Messages API (JSON or SSE); GET /v1/models lists
 * models; POST /v1/audio/transcriptions answers like OpenAI's speech-to-text (multipart in, `{text}` out).
 * Each test scripts the replies (a queue, then a responder function) and reads the recorded requests.
 */
import { once, EventEmitter } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pause, systemClock, type Clock } from "../../src/core/clock.js";
import { whenEmitted } from "../helpers/wait.js";

export interface FakeToolCall {
  name: string;
  /** An object is sent as its JSON; a string is sent as is (so a test can send malformed JSON). */
  arguments: object | string;
}

/** How a streamed reply trickles out: the text in pieces of `pieceSize` characters, `delayMs` apart. */
export interface FakeStreaming {
  pieceSize?: number;
  delayMs?: number;
  /** The connection is cut once this many characters of text were sent: a model failing midway. */
  failAfterChars?: number;
}

/**
 * A usage block as the fake reports it: `input` counts every input token, the cached ones (OpenAI's
 * prompt_tokens_details.cached_tokens, Anthropic's cache_read_input_tokens) and, for Anthropic, those written to
 * the cache (cache_creation_input_tokens) included.
 */
export interface FakeUsage {
  input: number;
  output: number;
  cachedInput?: number;
  cacheCreation?: number;
}

/**
 * `heldUntil`: nothing comes back before the promise settles (the test lets the model answer when it has seen what it
 * waits for). `usage`: the block to report instead of one made up from the sizes; null: none (OpenAI-compatible only).
 */
export type FakeReply =
  | { text: string; streaming?: FakeStreaming; delayMs?: number; heldUntil?: Promise<unknown>; usage?: FakeUsage | null }
  | { toolCalls: FakeToolCall[]; text?: string; streaming?: FakeStreaming; delayMs?: number; heldUntil?: Promise<unknown>; usage?: FakeUsage | null }
  | { status: number; body: unknown; headers?: Record<string, string> }
  /** Server-sent events written as they are (a stream a real endpoint could send that the scripted ones do not). */
  | { rawSse: string; contentType?: string }
  | { hang: true };

export interface FakeRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: FakeRequestBody;
}

export interface FakeRequestBody {
  model?: string;
  stream?: boolean;
  messages?: Array<Record<string, unknown> & { role: string }>;
  tools?: Array<{ name?: string; function?: { name: string; parameters?: unknown } }>;
  system?: string | Array<{ text: string }>;
  [key: string]: unknown;
}

export type FakeResponder = (request: FakeRequest) => FakeReply;

/** One speech-to-text request, its multipart form decoded. */
export interface FakeTranscription {
  headers: IncomingHttpHeaders;
  model: string | undefined;
  language: string | undefined;
  fileName: string | undefined;
  mime: string | undefined;
  audio: Buffer;
}

export type FakeTranscriptionReply = { text: string } | { status: number; body: unknown } | { hang: true };

export interface ToolResultSeen {
  toolCallId: string;
  /** Parsed from JSON when the content is JSON. */
  content: unknown;
}

export interface FakeOpenAI {
  /** Base URL ending in /v1. */
  url: string;
  /** Every model call (chat completions and messages), oldest first. */
  requests: FakeRequest[];
  /** Replies used in order, before the responder. */
  enqueue(...replies: FakeReply[]): void;
  /** Answers requests once the queue is empty. Without one, an empty queue answers 500. */
  respondWith(responder: FakeResponder): void;
  /** Resolves once `count` model calls have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** The tool results carried by the latest request. */
  lastToolResults(): ToolResultSeen[];
  /** The usage blocks of the answers sent, oldest first (none for an answer without one). */
  usages: FakeUsage[];
  /** Every speech-to-text request, oldest first (not counted in `requests`). */
  transcriptions: FakeTranscription[];
  /** Answers speech-to-text requests; without it they get a 500. */
  transcribeWith(responder: (request: FakeTranscription) => FakeTranscriptionReply): void;
  /** Stops the server and ends hanging requests. */
  close(): Promise<void>;
}

export const FAKE_MODEL_IDS = ["fake-model", "fake-vision-model"];

export interface FakeOpenAIOptions {
  /**
   * false: requests are answered but not kept in `requests` (nor waited for). For benchmarks: thousands of parsed
   * request bodies grew the measuring process's heap, and its collections showed up in the latencies it measured.
   */
  record?: boolean;
  /** What `delayMs` of a reply and of its streaming is counted on; the real clock when absent. */
  clock?: Clock;
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  const arrivals = new EventEmitter();
  let responder: FakeResponder | undefined;
  const transcriptions: FakeTranscription[] = [];
  const usages: FakeUsage[] = [];
  let transcriber: ((request: FakeTranscription) => FakeTranscriptionReply) | undefined;
  let callCounter = 0;
  const clock = opts.clock ?? systemClock;

  const nextReply = (request: FakeRequest): FakeReply =>
    queue.shift() ??
    responder?.(request) ?? { status: 500, body: { error: { message: "fake-openai: no reply scripted for this request" } } };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake-openai: ${String(err)}` } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/v1/models") {
      sendJson(res, 200, { object: "list", data: FAKE_MODEL_IDS.map((id) => ({ id, object: "model", owned_by: "fake" })) });
      return;
    }
    if (req.method === "POST" && TRANSCRIPTION_PATHS.has(path)) {
      const request = await readTranscription(req);
      transcriptions.push(request);
      const reply = transcriber?.(request) ?? { status: 500, body: { error: { message: "fake-openai: no transcription scripted" } } };
      if ("hang" in reply) return;
      if ("text" in reply) sendJson(res, 200, { text: reply.text });
      else sendJson(res, reply.status, reply.body);
      return;
    }
    const api = req.method === "POST" ? API_BY_PATH[path] : undefined;
    if (api === undefined) {
      sendJson(res, 404, { error: { message: `fake-openai: no route for ${req.method} ${path}` } });
      return;
    }
    let body: FakeRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as FakeRequestBody;
    } catch {
      sendJson(res, 400, { error: { message: "fake-openai: the request body is not JSON" } });
      return;
    }
    const request: FakeRequest = { path, headers: req.headers, body };
    if (opts.record !== false) requests.push(request);
    arrivals.emit("request");
    const reply = nextReply(request);
    if ("hang" in reply) return; // Left open until the client gives up or close() ends it.
    if ("status" in reply) {
      sendJson(res, reply.status, reply.body, reply.headers);
      return;
    }
    if ("rawSse" in reply) {
      res.writeHead(200, { "content-type": reply.contentType ?? "text/event-stream", "cache-control": "no-cache" });
      res.end(reply.rawSse);
      return;
    }
    const calls = ("toolCalls" in reply ? reply.toolCalls : []).map((call) => ({
      id: `call_${++callCounter}`,
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    }));
    // A slow model: nothing comes back before delayMs, streamed or not.
    if (reply.delayMs) await pause(clock, reply.delayMs);
    if (reply.heldUntil) await reply.heldUntil.catch(() => undefined);
    const text = reply.text ?? "";
    const answer: Answer = { text, calls, usage: reply.usage === undefined ? usageFor(body, text, calls) : reply.usage };
    if (answer.usage) usages.push(answer.usage);
    const streaming = reply.streaming ?? {};
    if (api === "anthropic") {
      if (body.stream === true) await sendSse(res, api, anthropicEvents(answer, body.model, streaming.pieceSize ?? 5), streaming, clock);
      else sendJson(res, 200, anthropicMessage(answer, body.model));
    } else if (body.stream === true) {
      await sendSse(res, api, openAIChunks(answer, body, streaming.pieceSize ?? 5), streaming, clock);
    } else {
      sendJson(res, 200, openAICompletion(answer, body.model));
    }
  }

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    usages,
    enqueue: (...replies) => void queue.push(...replies),
    respondWith: (fn) => void (responder = fn),
    waitForRequests: (count, timeoutMs = 5_000) =>
      whenEmitted(() => requests.length >= count, arrivals, "request", timeoutMs, () => `${count} requests to the fake LLM (got ${requests.length})`),
    lastToolResults: () => {
      const last = requests.at(-1);
      return last ? toolResultsOf(last) : [];
    },
    transcriptions,
    transcribeWith: (fn) => void (transcriber = fn),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** Names of the tools whose schemas the request carried. */
export function toolNamesOf(request: FakeRequest): string[] {
  return (request.body.tools ?? []).map((t) => t.function?.name ?? t.name ?? "?");
}

/** The system prompt of the request (OpenAI system messages or Anthropic `system` blocks), parts joined. */
export function systemPromptOf(request: FakeRequest): string {
  const { system, messages = [] } = request.body;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((block) => block.text).join("\n\n");
  return messages
    .filter((m) => m.role === "system" && typeof m.content === "string")
    .map((m) => m.content as string)
    .join("\n\n");
}

/** The tool results in the request's messages, in order (OpenAI `tool` messages or Anthropic tool_result blocks). */
export function toolResultsOf(request: FakeRequest): ToolResultSeen[] {
  return (request.body.messages ?? []).flatMap((message): ToolResultSeen[] => {
    if (message.role === "tool") return [{ toolCallId: String(message.tool_call_id), content: parseMaybeJson(message.content) }];
    if (message.role !== "user" || !Array.isArray(message.content)) return [];
    return (message.content as Array<Record<string, unknown>>)
      .filter((block) => block.type === "tool_result")
      .map((block) => ({ toolCallId: String(block.tool_use_id), content: parseMaybeJson(block.content) }));
  });
}

const API_BY_PATH: Record<string, "openai" | "anthropic" | undefined> = {
  "/v1/chat/completions": "openai",
  "/chat/completions": "openai",
  "/v1/messages": "anthropic",
};

const TRANSCRIPTION_PATHS = new Set(["/v1/audio/transcriptions", "/audio/transcriptions"]);

/** Decodes the multipart form with the platform's own parser (the one fetch uses). */
async function readTranscription(req: IncomingMessage): Promise<FakeTranscription> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const form = await new Response(Buffer.concat(chunks), { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
  const file = form.get("file");
  const field = (name: string): string | undefined => {
    const value = form.get(name);
    return typeof value === "string" ? value : undefined;
  };
  return {
    headers: req.headers,
    model: field("model"),
    language: field("language"),
    fileName: file instanceof File ? file.name : undefined,
    mime: file instanceof File ? file.type : undefined,
    audio: file instanceof File ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0),
  };
}

interface Answer {
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
  usage: FakeUsage | null;
}

function usageFor(body: FakeRequestBody, text: string, calls: Answer["calls"]): FakeUsage {
  const output = text.length + calls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return { input: Math.ceil(JSON.stringify(body.messages ?? []).length / 4), output: Math.ceil(output / 4) || 1 };
}

function openAIUsage(usage: FakeUsage): object {
  const details = usage.cachedInput !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedInput } } : {};
  return { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output, ...details };
}

/** Anthropic counts input without the cache's tokens, and those read from and written to it apart. */
function anthropicUsage(usage: FakeUsage | null, output: number = usage?.output ?? 0): object {
  if (!usage) throw new Error("fake-openai: an Anthropic answer always has a usage block");
  const cached = usage.cachedInput ?? 0;
  const created = usage.cacheCreation ?? 0;
  return {
    input_tokens: usage.input - cached - created,
    output_tokens: output,
    ...(usage.cachedInput !== undefined ? { cache_read_input_tokens: cached } : {}),
    ...(usage.cacheCreation !== undefined ? { cache_creation_input_tokens: created } : {}),
  };
}

const finishReasonOf = (answer: Answer): string => (answer.calls.length > 0 ? "tool_calls" : "stop");

function openAICompletion(answer: Answer, model: string | undefined): object {
  const toolCalls = answer.calls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: model ?? "fake-model",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: answer.text || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReasonOf(answer),
      },
    ],
    ...(answer.usage ? { usage: openAIUsage(answer.usage) } : {}),
  };
}

/** The chunks OpenAI streams: role, text in pieces, each tool call's id and name, then its arguments in pieces. */
function openAIChunks(answer: Answer, body: FakeRequestBody, pieceSize: number): object[] {
  const base = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "fake-model",
  };
  const chunk = (delta: object, finishReason: string | null = null): object => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const chunks = [chunk({ role: "assistant", content: "" })];
  for (const piece of pieces(answer.text, pieceSize)) chunks.push(chunk({ content: piece }));
  answer.calls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of pieces(call.arguments, 7)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, finishReasonOf(answer)));
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage && answer.usage) chunks.push({ ...base, choices: [], usage: openAIUsage(answer.usage) });
  return chunks;
}

/** The server-sent events of the Anthropic Messages API for the same answer. */
function anthropicEvents(answer: Answer, model: string | undefined, pieceSize: number): object[] {
  const message = anthropicMessage(answer, model) as { content: unknown[]; stop_reason: string; usage: object };
  const events: object[] = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: anthropicUsage(answer.usage, 0) } },
  ];
  let index = 0;
  if (answer.text) {
    events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const piece of pieces(answer.text, pieceSize)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
    events.push({ type: "content_block_stop", index: index++ });
  }
  for (const call of answer.calls) {
    events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: call.arguments } });
    events.push({ type: "content_block_stop", index: index++ });
  }
  events.push({ type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: answer.usage?.output ?? 0 } });
  events.push({ type: "message_stop" });
  return events;
}

function anthropicMessage(answer: Answer, model: string | undefined): object {
  const content = [
    ...(answer.text ? [{ type: "text", text: answer.text }] : []),
    ...answer.calls.map((call) => ({
      type: "tool_use",
      id: call.id,
      name: call.name,
      input: JSON.parse(call.arguments) as unknown,
    })),
  ];
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: model ?? "fake-model",
    content,
    stop_reason: answer.calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: anthropicUsage(answer.usage),
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function parseMaybeJson(content: unknown): unknown {
  if (typeof content !== "string") return content;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Writes the events, `delayMs` apart; cuts the connection after `failAfterChars` characters of answer text. */
async function sendSse(res: ServerResponse, api: "openai" | "anthropic", events: object[], streaming: FakeStreaming, clock: Clock): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let textSent = 0;
  for (const event of events) {
    if (res.destroyed) return;
    const data = JSON.stringify(event);
    const { type } = event as { type?: unknown };
    const written = new Promise((resolve) => res.write(api === "anthropic" ? `event: ${String(type)}\ndata: ${data}\n\n` : `data: ${data}\n\n`, resolve));
    textSent += textLengthOf(event);
    if (streaming.failAfterChars !== undefined && textSent >= streaming.failAfterChars) {
      // What was written reaches the client before the connection breaks.
      await written;
      res.destroy();
      return;
    }
    if (streaming.delayMs) await pause(clock, streaming.delayMs);
  }
  // OpenAI ends its stream with a [DONE] line; Anthropic's ends with the message_stop event.
  res.end(api === "openai" ? "data: [DONE]\n\n" : "");
}

/** Characters of answer text an OpenAI chunk or Anthropic event carries. */
function textLengthOf(event: object): number {
  const e = event as { choices?: Array<{ delta?: { content?: string } }>; delta?: { text?: string } };
  return (e.choices?.[0]?.delta?.content ?? e.delta?.text ?? "").length;
}
