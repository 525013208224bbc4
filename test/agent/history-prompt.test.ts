import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withHistoryPrompt } from "../../src/agent/history-prompt.js";
import { createModel } from "../../src/agent/llm.js";
import { watchedModel } from "../../src/agent/stream.js";
import { configSchema } from "../../src/config.js";
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from "../fakes/openai-server.js";

/** A history with every kind of message a session keeps, including a tool result with an image in the middle. */
const history: ModelMessage[] = [
  { role: "user", content: "what time is it in Tokyo?" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "I should ask the clock." },
      { type: "text", text: "" },
      { type: "tool-call", toolCallId: "call-1", toolName: "clock", input: { zone: "Asia/Tokyo" } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call-1", toolName: "clock", output: { type: "json", value: { time: "09:00" } } }] },
  { role: "assistant", content: "It is 09:00 in Tokyo." },
  { role: "user", content: [{ type: "text", text: "and the weather?" }, { type: "text", text: "" }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call-2", toolName: "weather", input: {} }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call-2", toolName: "weather", output: { type: "content", value: [{ type: "text", text: "sunny" }] } }] },
  { role: "assistant", content: "Sunny." },
  { role: "user", content: "show me the map" },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call-3", toolName: "map", input: {} }] },
  {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "call-3", toolName: "map", output: { type: "content", value: [{ type: "media", data: "iVBORw0KGgo=", mediaType: "image/png" }] } }],
  },
  { role: "assistant", content: "Here is the map." },
  { role: "user", content: "thanks" },
  { role: "assistant", content: "You're welcome." },
];
const latest: ModelMessage = { role: "user", content: "one more thing" };

const tools = {
  clock: tool({ inputSchema: jsonSchema({ type: "object", properties: { zone: { type: "string" } } }), execute: () => Promise.resolve({ time: "10:00" }) }),
};

describe("the converted history in front of generateText's messages", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake.close());

  /**
   * The request bodies of one turn (a tool call, then an answer), with the history given whole or spliced in, the
   * model called plainly or watched (streamed, as the agent calls it when someone sees the reply grow).
   */
  async function bodies(provider: "openai-compatible" | "anthropic", way: "whole" | "spliced" | "spliced and watched"): Promise<unknown[]> {
    const llm = configSchema.parse({ llm: { provider, baseUrl: fake.url, model: "fake-model", apiKey: "sk-test", maxRetries: 0 } }).llm;
    const model = createModel(llm);
    const replies: FakeReply[] = [{ toolCalls: [{ name: "clock", arguments: { zone: "UTC" } }] }, { text: "Done." }];
    fake.enqueue(...replies);
    const from = fake.requests.length;
    const shown: string[] = [];
    // As the agent wraps it: watched first, the history spliced in around that.
    const base = way === "spliced and watched" ? watchedModel(model, [], (event) => shown.push(event.text)) : model;
    const call = way === "whole" ? { model: base, messages: [...history, latest] } : withHistoryPrompt(base, history, latest);
    const result = await generateText({ ...call, system: "You are helpful.", tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(result.text).toBe("Done.");
    if (way === "spliced and watched") expect(shown).toContain("Done.");
    // The fake numbers its tool calls across the server's life; a streamed call asks for a stream.
    return fake.requests.slice(from).map((request) => {
      const { stream: _stream, stream_options: _options, ...body } = request.body;
      return JSON.parse(JSON.stringify(body).replace(/"call_\d+"/g, '"call_N"')) as unknown;
    });
  }

  for (const provider of ["openai-compatible", "anthropic"] as const) {
    it(`sends ${provider} the same requests, every step of the turn, watched or not`, async () => {
      const whole = await bodies(provider, "whole");
      expect(whole).toHaveLength(2);
      expect(await bodies(provider, "spliced")).toEqual(whole);
      // A streamed call may ask for more (Anthropic streams tool input eagerly); the conversation must be the same.
      const conversation = (body: unknown) => {
        const { system, messages } = body as { system?: unknown; messages: unknown };
        return { system, messages };
      };
      expect((await bodies(provider, "spliced and watched")).map(conversation)).toEqual(whole.map(conversation));
    });
  }

  it("leaves to generateText the history from the first message it may have to download", () => {
    const { messages } = withHistoryPrompt(createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model" } }).llm), history, latest);
    // Up to the map's request (its image result is the SDK's to convert), then the rest and this turn's message.
    expect(messages).toEqual([...history.slice(9), latest]);
  });

  it("ends the converted part where every tool call has its result, so a broken history fails as before", async () => {
    const model = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model", maxRetries: 0 } }).llm);
    const unanswered: ModelMessage[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "lost", toolName: "clock", input: {} }] },
      { role: "user", content: "still there?" },
    ];
    const call = withHistoryPrompt(model, unanswered, latest);
    expect(call.messages).toEqual([...unanswered.slice(2), latest]);
    const before = fake.requests.length;
    await expect(generateText({ ...call, maxRetries: 0 })).rejects.toThrow(/Tool result is missing for tool call lost/);
    expect(fake.requests.length).toBe(before);
  });

  /**
   * The prompt the provider is handed (recorded in front of the real provider, which then calls the fake), with the
   * history given whole or spliced in; or the error generateText ends with.
   */
  async function promptSent(messages: ModelMessage[], spliced: boolean): Promise<unknown> {
    const recorded: unknown[] = [];
    const recorder: LanguageModelMiddleware = {
      specificationVersion: "v3",
      transformParams: ({ params }) => {
        recorded.push(JSON.parse(JSON.stringify(params.prompt)));
        return Promise.resolve(params);
      },
    };
    const provider = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model", maxRetries: 0 } }).llm);
    const model = wrapLanguageModel({ model: provider as Parameters<typeof wrapLanguageModel>[0]["model"], middleware: recorder });
    fake.enqueue({ text: "ok" });
    const call = spliced ? withHistoryPrompt(model, messages, latest) : { model, messages: [...messages, latest] };
    try {
      await generateText({ ...call, system: "You are helpful.", allowSystemInMessages: true, maxRetries: 0 });
      return recorded;
    } catch (err) {
      return (err as Error).message;
    }
  }

  const call = (id: string): ModelMessage => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "clock", input: {} }] });
  const result = (id: string, providerOptions?: ModelMessage["providerOptions"]): ModelMessage => ({
    role: "tool",
    content: [{ type: "tool-result", toolCallId: id, toolName: "clock", output: { type: "text", value: id } }],
    ...(providerOptions ? { providerOptions } : {}),
  });
  const histories: Record<string, ModelMessage[]> = {
    "two tool messages in a row (merged by generateText)": [{ role: "user", content: "hi" }, call("a"), result("a", { x: { a: 1 } }), result("b"), { role: "assistant", content: "done" }],
    "a user message while a call is open (refused by generateText)": [call("a"), { role: "user", content: "interrupt" }, result("a")],
    "a system message in the history": [{ role: "user", content: "hi" }, { role: "assistant", content: "yo" }, { role: "system", content: "from the history" }, { role: "user", content: "x" }],
  };
  for (const [name, messages] of Object.entries(histories)) {
    it(`hands the provider what generateText would: ${name}`, async () => {
      const whole = await promptSent(messages, false);
      expect(await promptSent(messages, true)).toEqual(whole);
    });
  }

  it("gives generateText the whole history with a model it cannot wrap", () => {
    expect(withHistoryPrompt("openai/gpt-4o", history.slice(0, 4), latest)).toEqual({ model: "openai/gpt-4o", messages: [...history.slice(0, 4), latest] });
  });

  it("gives generateText everything when no message can be converted first", () => {
    const model = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model" } }).llm);
    const image: ModelMessage = { role: "user", content: [{ type: "image", image: new URL("https://example.com/cat.png") }] };
    const call = withHistoryPrompt(model, [image, ...history.slice(0, 4)], latest);
    expect(call.model).toBe(model);
    expect(call.messages).toEqual([image, ...history.slice(0, 4), latest]);
  });
});
