import { APICallError, generateText, stepCountIs, tool, jsonSchema } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModel } from "../../../src/agent/llm.js";
import { watchedModel } from "../../../src/agent/stream.js";
import { configSchema } from "../../../src/config.js";
import type { TurnEvent } from "../../../src/core/turn.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../fakes/openai-server.js";

let fake: FakeOpenAI;
beforeEach(async () => {
  fake = await startFakeOpenAI();
});
afterEach(async () => {
  await fake.close();
});

/** A watched call of the model the agent uses for an OpenAI-compatible endpoint; what the watcher was shown. */
async function watched(opts: { tools?: boolean; signal?: AbortSignal } = {}) {
  const model = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-test", maxRetries: 0 } }).llm);
  const events: TurnEvent[] = [];
  const call = generateText({
    model: watchedModel(model, [], (event) => events.push(event)),
    messages: [{ role: "user", content: "hi" }],
    maxRetries: 0,
    stopWhen: stepCountIs(3),
    ...(opts.signal ? { abortSignal: opts.signal } : {}),
    ...(opts.tools ? { tools: { lookup: tool({ inputSchema: jsonSchema({ type: "object", properties: { q: { type: "string" } } }), execute: async () => "found" }) } } : {}),
  });
  return { call, events, texts: () => events.flatMap((e) => (e.type === "text" ? [e.text] : [])) };
}

const sse = (...events: unknown[]): string => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
const chunk = (delta: object, finish: string | null = null) => ({ id: "c1", created: 1, model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] });

describe("a watched step to an OpenAI-compatible endpoint, streamed through the fetch", () => {
  it("asks for a stream with the usage, shows the text as it comes, and sends no header of its own", async () => {
    fake.enqueue({ text: "Here is a short answer to your question.", streaming: { pieceSize: 4 } });
    const { call, texts } = await watched();

    const result = await call;

    expect(result.text).toBe("Here is a short answer to your question.");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, model: "fake-model" });
    expect(Object.keys(fake.requests[0]!.headers).filter((name) => name.startsWith("x-switchboard"))).toEqual([]);
    expect(texts().length).toBeGreaterThan(5);
    expect(texts().at(-1)).toBe("Here is a short answer to your question.");
  });

  it("leaves tool calls to the provider's stream parser, without asking the endpoint twice", async () => {
    fake.enqueue({ text: "Let me look.", toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, { text: "Found it." });
    const { call, events } = await watched({ tools: true });

    const result = await call;

    expect(result.steps.map((step) => step.toolCalls.map((c) => [c.toolName, c.input]))).toEqual([[["lookup", { q: "x" }]], []]);
    expect(result.text).toBe("Found it.");
    expect(fake.requests).toHaveLength(2);
    expect(events).toContainEqual({ type: "status", text: "Running lookup..." });
    // The first step's text was shown as it came, and not again when the answer was replayed.
    const status = events.findIndex((e) => e.type === "status");
    expect(events.slice(0, status).flatMap((e) => (e.type === "text" ? [e.text] : [])).at(-1)).toBe("Let me look.");
  });

  it("keeps reasoning that comes before the text as a part of its own", async () => {
    fake.enqueue({ rawSse: sse(chunk({ role: "assistant", reasoning_content: "think " }), chunk({ reasoning_content: "more" }), chunk({ content: "Answer." }, "stop"), "[DONE]") });
    const { call } = await watched();

    const result = await call;

    expect(result.reasoningText).toBe("think more");
    expect(result.text).toBe("Answer.");
  });

  it("keeps the order of reasoning that comes after the text begins, through the provider's parser", async () => {
    fake.enqueue({ rawSse: sse(chunk({ content: "First. " }), chunk({ reasoning_content: "hmm" }), chunk({ content: "Second." }, "stop"), "[DONE]") });
    const { call, texts } = await watched();

    const result = await call;

    expect(result.content.map((part) => part.type)).toEqual(["text", "reasoning", "text"]);
    expect(result.text).toBe("First. Second.");
    expect(texts().at(-1)).toBe("First. Second.");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails with the endpoint's own message on an error event in the stream, as the provider does", async () => {
    fake.enqueue({ rawSse: sse(chunk({ content: "Half an" }), { error: { message: "upstream overloaded", type: "server_error" } }) });
    const { call, texts } = await watched();

    await expect(call).rejects.toMatchObject({ message: expect.stringContaining("upstream overloaded") });
    expect(texts().at(-1)).toBe("Half an");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails on an event that is not JSON, as the provider does", async () => {
    fake.enqueue({ rawSse: sse(chunk({ content: "Hi" }), "{not json", "[DONE]") });
    const { call } = await watched();

    await expect(call).rejects.toThrow();
    expect(fake.requests).toHaveLength(1);
  });

  it("reads an endpoint that answers in one piece despite being asked to stream", async () => {
    fake.enqueue({
      status: 200,
      body: { id: "c1", object: "chat.completion", created: 1, model: "fake-model", choices: [{ index: 0, message: { role: "assistant", content: "Whole." }, finish_reason: "stop" }] },
    });
    const { call } = await watched();

    expect((await call).text).toBe("Whole.");
  });

  it("passes an error status on as the provider reads it, retryable when it is", async () => {
    fake.enqueue({ status: 429, body: { error: { message: "slow down" } } });
    const { call } = await watched();

    const err = await call.catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ statusCode: 429, isRetryable: true, message: expect.stringContaining("slow down") });
  });

  it("stops reading when the turn is stopped midway", async () => {
    fake.enqueue({ text: "A slow answer in many pieces.", streaming: { pieceSize: 2, delayMs: 20 } });
    const stop = new AbortController();
    const { call, texts } = await watched({ signal: stop.signal });
    const outcome = call.then(
      () => "answered",
      (err: unknown) => (err as Error).name,
    );
    const deadline = Date.now() + 5_000;
    while (texts().length < 2 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));

    stop.abort();

    expect(await outcome).toBe("AbortError");
    expect(texts().at(-1)!.length).toBeLessThan("A slow answer in many pieces.".length);
  });

  it("fails a stream that ends without a finish reason, as the provider does, rather than take half an answer", async () => {
    fake.enqueue({ rawSse: sse(chunk({ content: "The first half of an ans" })) }, { rawSse: "" });
    for (const _ of [1, 2]) {
      const { call } = await watched();
      await expect(call).rejects.toThrow(/finish reason/);
    }
    expect(fake.requests).toHaveLength(2);
  });

  it("shows text that comes as content parts, and leaves the parts to the provider", async () => {
    const part = (text: string, finish: string | null = null) => chunk({ content: [{ type: "text", text }] }, finish);
    fake.enqueue({ rawSse: sse(part("Hello "), part("there", "stop"), "[DONE]") });
    const { call, texts } = await watched();

    expect((await call).text).toBe("Hello there");
    expect(texts()).toEqual(["Hello ", "Hello there"]);
  });

  it("reads events sent under another content type, as the provider does", async () => {
    fake.enqueue({ rawSse: sse(chunk({ content: "Plain." }, "stop"), "[DONE]"), contentType: "application/octet-stream" });
    const { call, texts } = await watched();

    expect((await call).text).toBe("Plain.");
    expect(texts().at(-1)).toBe("Plain.");
  });
});
