import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage, type ToolResultPart, type ToolSet } from "ai";
import { convertToOpenAICompatibleChatMessages, prepareTools } from "@ai-sdk/openai-compatible/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withHistoryPrompt } from "../../../src/agent/wire/history-prompt.js";
import { requestWireOf, RequestWire } from "../../../src/agent/wire/request-wire.js";
import type { ModelV3, PromptMessage } from "../../../src/agent/wire/model-call.js";
import type { CallTool } from "../../../src/agent/wire/tool-forms.js";
import { createModel } from "../../../src/agent/llm.js";
import { watchedModel } from "../../../src/agent/stream.js";
import { configSchema } from "../../../src/config.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../fakes/openai-server.js";

const tools = {
  clock: tool({ inputSchema: jsonSchema({ type: "object", properties: { zone: { type: "string" } } }), execute: () => Promise.resolve({ time: "10:00" }) }),
  // Text beyond ASCII, quotes, and a name that looks like the placeholder's.
  "switchboard-tools-00": tool({
    description: 'Says "時間" \\ 🕘',
    inputSchema: jsonSchema({ type: "object", properties: {}, additionalProperties: false }),
    strict: true,
    execute: () => Promise.resolve("ok"),
  }),
};

describe("the session history and the tools put into OpenAI-compatible requests as bytes", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake.close());

  const newModel = () => createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-test", maxRetries: 0 } }).llm);

  /** The bodies of one turn (a tool call, then an answer), the history given whole or through the wire. */
  async function turnBodies(history: ModelMessage[], latest: ModelMessage, way: "whole" | "wire" | "wire, watched"): Promise<unknown[]> {
    const model = newModel();
    fake.enqueue({ toolCalls: [{ name: "clock", arguments: { zone: "UTC" } }] }, { text: "Done." });
    const from = fake.requests.length;
    const watched = way === "wire, watched" ? watchedModel(model, [], () => {}) : model;
    const wire = requestWireOf(model)!;
    const call = way === "whole" ? { model, messages: [...history, latest] } : withHistoryPrompt(watched, history, latest, wire);
    const spliced = way === "whole" ? call.model : wire.withTools(call.model);
    const result = await generateText({ ...call, model: spliced, system: "You are helpful.", tools, stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(result.text).toBe("Done.");
    return fake.requests.slice(from).map((request) => {
      expect(Object.keys(request.headers).filter((name) => name.startsWith("x-switchboard"))).toEqual([]);
      const { stream: _stream, stream_options: _options, ...body } = request.body;
      return JSON.parse(JSON.stringify(body).replace(/"call_\d+"/g, '"call_N"')) as unknown;
    });
  }

  it("sends what the provider sends given the whole history, turn after turn of a growing session", async () => {
    const history: ModelMessage[] = [];
    const toolTurn = (id: string, output: ToolResultPart["output"]): ModelMessage[] => [
      { role: "user", content: "what time is it?" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "clock", input: { zone: "UTC" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "clock", output }] },
      { role: "assistant", content: "09:00." },
    ];
    const turns: ModelMessage[][] = [
      toolTurn("c1", { type: "json", value: { time: "09:00" } }),
      // Text beyond ASCII, where characters and bytes differ, and text that looks like the placeholder.
      [{ role: "user", content: "日本の時間は？ 🕘 \"quoted\" \\ switchboard-history-00" }, { role: "assistant", content: [{ type: "reasoning", text: "hmm" }, { type: "text", text: "九時です。" }] }],
      toolTurn("c2", { type: "text", value: "nine" }),
    ];
    for (const turn of turns) {
      history.push(...turn);
      const latest: ModelMessage = { role: "user", content: `turn ${history.length}` };
      const whole = await turnBodies(history.slice(), latest, "whole");
      expect(await turnBodies(history.slice(), latest, "wire")).toEqual(whole);
      expect(await turnBodies(history.slice(), latest, "wire, watched")).toEqual(whole);
    }
  });

  it("puts the history into every attempt of a retried call, and lets go of it when the call is over", async () => {
    for (const watched of [false, true]) {
      const model = createModel(configSchema.parse({ llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-test", maxRetries: 1 } }).llm);
      const wire = requestWireOf(model)!;
      const history: ModelMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }];
      fake.enqueue({ status: 500, body: { error: { message: "busy" } } }, { text: "Hi again." });
      const from = fake.requests.length;
      const base = watched ? watchedModel(model, [], () => {}) : model;
      const result = await generateText({ ...withHistoryPrompt(base, history, { role: "user", content: "again" }, wire), maxRetries: 1 });
      expect(result.text).toBe("Hi again.");
      const sent = fake.requests.slice(from).map((request) => request.body.messages);
      expect(sent).toEqual([sent[1], [...history, { role: "user", content: "again" }]]);
      // The calls were numbered 1 and 2 on this model's wire; neither can be spliced into a request any more.
      for (const id of ["1", "2"]) {
        const late = wire.fetch(`${fake.url}/chat/completions`, { method: "POST", headers: { "x-switchboard-history": id }, body: "{}" });
        await expect(late).rejects.toThrow(/its model call is over/);
      }
    }
  });

  it("puts the history into a streamed call too", async () => {
    const model = newModel();
    const history: ModelMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }];
    const latest: ModelMessage = { role: "user", content: "again" };
    fake.enqueue({ text: "Hi again." });
    const result = streamText({ ...withHistoryPrompt(model, history, latest, requestWireOf(model)), system: "You are helpful.", maxRetries: 0 });
    expect(await result.text).toBe("Hi again.");
    expect(fake.requests.at(-1)!.body.messages).toEqual([
      { role: "system", content: "You are helpful." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "again" },
    ]);
  });

  /** The body of one call with `callTools`, straight to the provider or through the wire's tools splice. */
  async function toolsBody(callTools: ToolSet, way: "provider" | "wire"): Promise<unknown> {
    const model = newModel();
    fake.enqueue({ text: "Done." });
    const spliced = way === "provider" ? model : requestWireOf(model)!.withTools(model);
    await generateText({ model: spliced, prompt: "hi", tools: callTools, maxRetries: 0 });
    const { headers, body } = fake.requests.at(-1)!;
    expect(Object.keys(headers).filter((name) => name.startsWith("x-switchboard"))).toEqual([]);
    return body;
  }

  it("sends the tools as the provider does, again when a definition changes under the same names", async () => {
    const schema = { type: "object", properties: { q: { type: "string", description: 'é"🕘' } } } as const;
    const clock = (description: string, inputSchema: object = schema, strict?: boolean) =>
      tool({ description, inputSchema: jsonSchema(inputSchema), ...(strict !== undefined ? { strict } : {}), execute: () => Promise.resolve("ok") });
    const model = newModel();
    const wired = requestWireOf(model)!.withTools(model);
    const sets: ToolSet[] = [
      { clock: clock("first"), other: clock("second") },
      { clock: clock("first"), other: clock("second") },
      { clock: clock("changed"), other: clock("second") },
      { clock: clock("changed", schema, true), other: clock("second") },
      { clock: clock("changed", schema, true), other: clock("second", { ...schema, required: ["q"] }) },
      { other: clock("second") },
    ];
    for (const callTools of sets) {
      fake.enqueue({ text: "Done." }, { text: "Done." }, { text: "Done." });
      await generateText({ model, prompt: "hi", tools: callTools, maxRetries: 0 });
      await generateText({ model: wired, prompt: "hi", tools: callTools, maxRetries: 0 });
      expect(await streamText({ model: wired, prompt: "hi", tools: callTools, maxRetries: 0 }).text).toBe("Done.");
      const [direct, spliced, streamed] = fake.requests.slice(-3).map((request) => request.body);
      expect(spliced).toEqual(direct);
      expect(JSON.stringify(spliced)).not.toContain("switchboard-tools-");
      const { stream: _stream, stream_options: _options, ...streamedBody } = streamed!;
      expect(streamedBody).toEqual(direct);
    }
  });

  it("serializes a tool set once for the calls that ask for the same definitions", async () => {
    let serialized = 0;
    // JSON.stringify asks a schema with toJSON for what to write: each serialization of the tool set counts.
    const schema = { toJSON: () => (serialized++, { type: "object", properties: { zone: { type: "string" } } }) };
    const clock = tool({ description: "The time.", inputSchema: jsonSchema(schema as object), execute: () => Promise.resolve("ok") });
    const model = newModel();
    fake.enqueue({ text: "Done." }, { text: "Done." }, { text: "Done." }, { text: "Done." });
    await generateText({ model, prompt: "hi", tools: { clock }, maxRetries: 0 });
    const byTheProvider = serialized;
    serialized = 0;
    const wired = requestWireOf(model)!.withTools(model);
    for (let call = 0; call < 2; call++) await generateText({ model: wired, prompt: "hi", tools: { clock }, maxRetries: 0 });
    expect(await streamText({ model: wired, prompt: "hi", tools: { clock }, maxRetries: 0 }).text).toBe("Done.");
    expect(byTheProvider).toBe(2);
    expect(serialized).toBe(1);
    const sentTools = fake.requests.slice(-4).map((request) => request.body.tools);
    expect(sentTools.slice(1)).toEqual([sentTools[0], sentTools[0], sentTools[0]]);
  });

  it("leaves a call with a provider's own tool, or without tools, to the provider, and its warnings with it", async () => {
    const search = { type: "provider", id: "x.search", args: {}, inputSchema: jsonSchema({ type: "object" }) } as unknown as ToolSet[string];
    const warned: unknown[] = [];
    globalThis.AI_SDK_LOG_WARNINGS = ({ warnings }) => void warned.push(...warnings);
    try {
      const warningsOf = async (callTools: ToolSet, way: "provider" | "wire") => {
        warned.length = 0;
        const body = await toolsBody(callTools, way);
        return { body, warnings: [...warned] };
      };
      for (const callTools of [{ ...tools, search }, {}]) {
        expect(await warningsOf(callTools, "wire")).toEqual(await warningsOf(callTools, "provider"));
      }
      // The provider drops its own tool with a warning, through the wire as without it.
      expect((await warningsOf({ ...tools, search }, "wire")).warnings).toEqual([{ type: "unsupported", feature: "provider-defined tool x.search" }]);
    } finally {
      globalThis.AI_SDK_LOG_WARNINGS = undefined;
    }
  });

  it("refuses a request whose tools placeholder is missing, and tools spliced into one call twice", async () => {
    const model = newModel();
    const wire = requestWireOf(model)!;
    // A provider that stopped serializing the tools it is handed: nothing reaches the endpoint.
    const before = fake.requests.length;
    const forgetful = providerModel((params) => wire.fetch(`${fake.url}/chat/completions`, { method: "POST", headers: params.headers as Record<string, string>, body: '{"tools":[]}' }));
    const missing = generateText({ model: wire.withTools(forgetful), prompt: "hi", tools, maxRetries: 0 });
    await expect(missing).rejects.toThrow(/the tool definitions could not be put into the request to http:\/\/127\.0\.0\.1:\d+\/.*chat\/completions: its placeholder is missing/);
    const twice = generateText({ model: wire.withTools(wire.withTools(model)), prompt: "hi", tools, maxRetries: 0 });
    await expect(twice).rejects.toThrow(/tool definitions would be spliced into one model call twice \(two withTools wrappers/);
    expect(fake.requests.length).toBe(before);
  });

  it("refuses to send a request whose placeholder is missing, rather than send it without the history", async () => {
    const wire = new RequestWire((input, init) => fetch(input, init));
    const splice = wire.splicer([{ role: "user", content: [{ type: "text", text: "earlier" }] } satisfies PromptMessage], 1);
    const before = fake.requests.length;
    const params = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "now" }] }] };
    // A body built without the prompt the splice handed over (as a provider that changed its serialization would).
    const sent = splice(params, 0, (spliced) => wire.fetch(`${fake.url}/chat/completions`, { method: "POST", headers: spliced.headers as Record<string, string>, body: "{}" }));
    await expect(sent).rejects.toThrow(/session history could not be put into the request to http:\/\/127\.0\.0\.1:\d+\/.*chat\/completions: its placeholder is missing/);
    expect(fake.requests.length).toBe(before);
  });
});

describe("the wire's splices, on their own", () => {
  /** A wire whose fetch hands the body it would send to `sent`, and a body the way the provider builds one. */
  function wireWithSent() {
    const sent: string[] = [];
    const wire = new RequestWire((_input, init) => {
      sent.push(Buffer.from(init!.body as Uint8Array).toString());
      return Promise.resolve(new Response("{}"));
    });
    const provide = (prompt: readonly PromptMessage[], copies = 1) =>
      `{"model":"m","messages":[${Array.from({ length: copies }, () => convertToOpenAICompatibleChatMessages([...prompt]).map((m) => JSON.stringify(m)).join(",")).join(",")}],"tools":[]}`;
    return { wire, sent, provide };
  }
  const system: PromptMessage = { role: "system", content: "sys" };
  const now: PromptMessage = { role: "user", content: [{ type: "text", text: "now" }] };

  it("serializes any start of a growing history as the provider would, also a shorter one than before", async () => {
    const { wire, sent, provide } = wireWithSent();
    const history: PromptMessage[] = [];
    const kinds: PromptMessage[] = [
      { role: "user", content: [{ type: "text", text: 'é"\\ 🕘' }] },
      { role: "user", content: [{ type: "text", text: "p" }, { type: "text", text: "q" }] },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "tool-call", toolCallId: "k1", toolName: "t", input: { z: 1 } }] },
      { role: "assistant", content: [{ type: "reasoning", text: "r" }, { type: "text", text: "" }] },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "k1", toolName: "t", output: { type: "json", value: { a: [1] } } },
          { type: "tool-result", toolCallId: "k2", toolName: "t", output: { type: "text", value: "x" } },
        ],
      },
    ];
    for (const count of [1, 3, 3, 2, 5, 4, 9, 10]) {
      while (history.length < count) history.push(kinds[history.length % kinds.length]!);
      await wire.splicer(history, count)({ prompt: [system, now] }, 1, (spliced) =>
        wire.fetch("http://endpoint/chat/completions", { method: "POST", headers: spliced.headers as Record<string, string>, body: provide(spliced.prompt) }),
      );
      expect(sent.at(-1)).toBe(provide([system, ...history.slice(0, count), now]));
    }
  });

  it("refuses a body with the placeholder twice, and a history spliced into one call twice", async () => {
    const { wire, sent, provide } = wireWithSent();
    const history: PromptMessage[] = [now];
    const twice = wire.splicer(history, 1)({ prompt: [now] }, 0, (spliced) =>
      wire.fetch("http://endpoint/chat/completions", { method: "POST", headers: spliced.headers as Record<string, string>, body: provide(spliced.prompt, 2) }),
    );
    await expect(twice).rejects.toThrow(/could not be put into the request to http:\/\/endpoint\/chat\/completions: its placeholder is there more than once/);
    const nested = wire.splicer(history, 1)({ prompt: [now] }, 0, (outer) => wire.splicer(history, 1)(outer, 0, () => Promise.resolve("sent")));
    await expect(nested).rejects.toThrow(/session history would be spliced into one model call twice \(two withHistoryPrompt wrappers/);
    expect(sent).toEqual([]);
  });

  it("puts the history and the tools in wherever the provider places them in the body", async () => {
    const { wire, sent } = wireWithSent();
    const history: PromptMessage[] = [{ role: "user", content: [{ type: "text", text: "earlier" }] }];
    const callTools: CallTool[] = [
      { type: "function", name: "a", description: "first", inputSchema: { type: "object" } },
      { type: "function", name: "b", inputSchema: { type: "object", properties: { q: { type: "string" } } }, strict: true },
    ];
    // The tools before the messages, unlike the provider today.
    const body = (prompt: PromptMessage[], tools: CallTool[] | undefined) =>
      JSON.stringify({ tools: prepareTools({ tools }).tools, messages: convertToOpenAICompatibleChatMessages(prompt) });
    const model = wire.withTools(
      providerModel((params) => wire.fetch("http://endpoint/chat/completions", { method: "POST", headers: params.headers as Record<string, string>, body: body(params.prompt, params.tools) })),
    ) as ModelV3;
    const call = wire.splicer(history, 1)({ prompt: [system, now], tools: callTools }, 1, (spliced) => model.doGenerate(spliced));
    await expect(call).rejects.toThrow("the request went out");
    expect(sent).toEqual([body([system, ...history, now], callTools)]);
  });
});

/** A provider model whose requests `send` makes, to see what the wire does with a body the provider got wrong. */
function providerModel(send: (params: Parameters<ModelV3["doGenerate"]>[0]) => Promise<Response>): ModelV3 {
  return {
    specificationVersion: "v3",
    provider: "test",
    modelId: "test",
    supportedUrls: {},
    doGenerate: async (params) => {
      await send(params);
      throw new Error("the request went out");
    },
    doStream: () => Promise.reject(new Error("not streamed here")),
  };
}
