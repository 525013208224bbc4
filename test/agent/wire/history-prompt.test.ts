import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withHistoryPrompt } from "../../../src/agent/wire/history-prompt.js";
import { createModel } from "../../../src/agent/llm.js";
import { watchedModel } from "../../../src/agent/stream.js";
import { configSchema } from "../../../src/config.js";
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from "../../fakes/openai-server.js";

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

  it("splices a history that grows from turn to turn as it would splice it fresh, looking only at the new messages", () => {
    const model = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model" } }).llm);
    const calls = (id: string): ModelMessage => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "clock", input: {} }] });
    const answers = (id: string): ModelMessage => ({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "clock", output: { type: "text", value: id } }] });
    const image: ModelMessage = { role: "user", content: [{ type: "image", image: new URL("https://example.com/cat.png") }] };
    // Each step the session's history as a turn sees it: the same message objects, more of them.
    const steps: ModelMessage[][] = [
      [{ role: "user", content: "hi" }],
      [{ role: "assistant", content: "hello" }],
      [calls("a")],
      // Ends on a tool message: where the spliced part ends depends on what comes next...
      [answers("a")],
      // ...a second tool message (generateText merges the two, so neither may be spliced)...
      [answers("b"), { role: "assistant", content: "done" }],
      [{ role: "user", content: "more" }, { role: "assistant", content: "sure" }],
      // ...and past a message only generateText may convert, nothing more is spliced.
      [image, { role: "assistant", content: "a cat" }],
    ];
    const history: ModelMessage[] = [];
    for (const step of steps) {
      history.push(...step);
      const grown = withHistoryPrompt(model, history.slice(), latest);
      // New message objects: nothing kept from before applies to them.
      const fresh = withHistoryPrompt(model, history.map((message) => ({ ...message })), latest);
      expect(grown.messages).toEqual([...history.slice(history.length + 1 - fresh.messages.length), latest]);
    }
    // A history cut short (or compacted) is scanned afresh too, and so is one that went on differently from where the
    // last scan of its first message ended.
    expect(withHistoryPrompt(model, history.slice(0, 2), latest).messages).toEqual([latest]);
    expect(withHistoryPrompt(model, history.slice(3), latest).messages).toEqual([...history.slice(3), latest]);
    const start: ModelMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, calls("b")];
    expect(withHistoryPrompt(model, start, latest).messages).toEqual([start[2], latest]);
    const otherwise: ModelMessage[] = [...start.slice(0, 2), { role: "assistant", content: "never mind" }, { role: "user", content: "ok" }];
    expect(withHistoryPrompt(model, otherwise, latest).messages).toEqual([latest]);
  });

  it("ends the spliced part where a full scan of the history would, however the history grew or shrank", () => {
    const model = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model" } }).llm);
    let seed = 20261125;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const open: string[] = [];
    let next = 0;
    const kinds: Array<() => ModelMessage> = [
      () => ({ role: "user", content: `u${next++}` }),
      () => ({ role: "assistant", content: `a${next++}` }),
      () => {
        const id = `c${next++}`;
        open.push(id);
        return { role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "clock", input: {} }] };
      },
      () => ({ role: "tool", content: [{ type: "tool-result", toolCallId: open.shift() ?? `x${next++}`, toolName: "clock", output: { type: "text", value: "r" } }] }),
      () => ({ role: "tool", content: [{ type: "tool-result", toolCallId: open.shift() ?? "z", toolName: "clock", output: { type: "content", value: [{ type: "media", data: "AA==", mediaType: "image/png" }] } }] }),
      () => ({ role: "user", content: [{ type: "image", image: new URL("https://example.com/cat.png") }] }),
      () => ({ role: "system", content: "s" }),
    ];
    const convertible = (m: ModelMessage) =>
      m.role !== "system" && !(Array.isArray(m.content) && m.content.some((part) => part.type === "image" || (part.type === "tool-result" && part.output.type === "content")));
    /** The rule as a scan of the whole history states it (the way withHistoryPrompt did before it kept scans). */
    const fullScan = (h: ModelMessage[]): number => {
      let closedAt = 0;
      const calls = new Set<string>();
      for (let i = 0; i < h.length; i++) {
        const m = h[i]!;
        if (!convertible(m) || (m.role === "tool" && h[i - 1]?.role === "tool") || (m.role === "user" && calls.size > 0)) break;
        for (const part of Array.isArray(m.content) ? m.content : []) {
          if (part.type === "tool-call") calls.add(part.toolCallId);
          if (part.type === "tool-result") calls.delete(part.toolCallId);
        }
        if (calls.size === 0 && !(m.role === "tool" && h[i + 1]?.role === "tool")) closedAt = i + 1;
      }
      return closedAt;
    };
    const spliced = (h: ModelMessage[]) => h.length + 1 - withHistoryPrompt(model, h, latest).messages.length;
    for (let trial = 0; trial < 300; trial++) {
      open.length = 0;
      const history: ModelMessage[] = [];
      for (let i = 0; i < 12; i++) {
        // Mostly conversation and tool traffic; now and then what stops the splice.
        const pick = random();
        history.push(kinds[pick < 0.85 ? Math.floor(random() * 4) : 4 + Math.floor(random() * 3)]!());
        if (random() < 0.3) continue;
        expect(spliced(history.slice())).toBe(fullScan(history));
        const cut = Math.floor(random() * history.length);
        if (random() < 0.1 && cut > 0) expect(spliced(history.slice(0, cut))).toBe(fullScan(history.slice(0, cut)));
      }
    }
  });
});

