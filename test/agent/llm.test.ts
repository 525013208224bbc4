import { generateText, jsonSchema, streamText, tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModel, describeLlmError, llmSetupProblem, routeSdkWarnings, type LlmConfig } from "../../src/agent/llm.js";
import { configSchema } from "../../src/config.js";
import { FAKE_MODEL_IDS, offeredToolNamesOf, startFakeOpenAI, systemPromptOf, type FakeOpenAI } from "../fakes/openai-server.js";
import { startHarness } from "./harness.js";

const llmConfig = (llm: Record<string, unknown>): LlmConfig => configSchema.parse({ llm }).llm;

describe("llmSetupProblem", () => {
  it("names the settings an openai-compatible endpoint still needs", () => {
    expect(llmSetupProblem(llmConfig({}))).toBe("set LLM_BASE_URL (llm.baseUrl) and LLM_MODEL (llm.model)");
    expect(llmSetupProblem(llmConfig({ baseUrl: "http://127.0.0.1:1/v1" }))).toBe("set LLM_MODEL (llm.model)");
    expect(llmSetupProblem(llmConfig({ baseUrl: "http://127.0.0.1:1/v1", model: "m" }))).toBeNull();
  });

  it("asks anthropic for a key and a model, not a base URL", () => {
    expect(llmSetupProblem(llmConfig({ provider: "anthropic", model: "claude" }))).toBe("set LLM_API_KEY (llm.apiKey)");
    expect(llmSetupProblem(llmConfig({ provider: "anthropic", model: "claude", apiKey: "k-123" }))).toBeNull();
  });

  it("makes createModel refuse incomplete settings with the same reason", () => {
    expect(() => createModel(llmConfig({ model: "m" }))).toThrow("The language model is not configured: set LLM_BASE_URL (llm.baseUrl)");
  });
});

describe("createModel against the fake server", () => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake.close();
  });

  it("streams text and a tool call whose arguments arrive in pieces, with usage", async () => {
    const model = createModel(llmConfig({ baseUrl: fake.url, model: "fake-model", apiKey: "sk-abc" }));
    fake.enqueue({ text: "Let me check the weather.", toolCalls: [{ name: "weather", arguments: { city: "Hangzhou", days: 3 } }] });

    const result = streamText({
      model,
      prompt: "weather?",
      tools: { weather: tool({ inputSchema: jsonSchema<{ city: string; days: number }>({ type: "object" }) }) },
    });
    const chunks: string[] = [];
    for await (const delta of result.textStream) chunks.push(delta);

    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe("Let me check the weather.");
    expect((await result.toolCalls).map((c) => [c.toolName, c.input])).toEqual([["weather", { city: "Hangzhou", days: 3 }]]);
    expect(await result.finishReason).toBe("tool-calls");
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, model: "fake-model" });
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-abc");
  });

  it("sends the request body as UTF-8 JSON with its content type and length, whatever the text", async () => {
    const model = createModel(llmConfig({ baseUrl: fake.url, model: "fake-model" }));
    fake.enqueue({ text: "好的" });
    const prompt = "天气怎么样？ 🌦 \ud800 end";

    const result = await generateText({ model, prompt });

    expect(result.text).toBe("好的");
    const { headers, body } = fake.requests[0]!;
    expect(headers["content-type"]).toBe("application/json");
    expect(Number(headers["content-length"])).toBe(Buffer.byteLength(JSON.stringify(body)));
    // JSON.stringify escapes a lone surrogate, so even that arrives as it was.
    expect(body.messages).toEqual([{ role: "user", content: prompt }]);
  });

  it("lists models for doctor and answers the path without /v1 too", async () => {
    const models = (await (await fetch(`${fake.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(FAKE_MODEL_IDS);
    fake.enqueue({ text: "hi" });
    const response = await fetch(fake.url.replace(/\/v1$/, "/chat/completions"), {
      method: "POST",
      body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: "hi" } }], usage: { total_tokens: expect.any(Number) } });
  });

  it("describes a failed call without the request it carried", async () => {
    const model = createModel(llmConfig({ baseUrl: fake.url, model: "fake-model", maxRetries: 0 }));
    fake.enqueue({ status: 401, body: { error: { message: "bad key" } } });
    const failure = await generateText({ model, prompt: "my private text", maxRetries: 0 }).catch((e: unknown) => e);
    const described = describeLlmError(failure);
    expect(described).toMatchObject({ name: "AI_APICallError", statusCode: 401, url: `${fake.url}/chat/completions` });
    expect(JSON.stringify(described)).not.toContain("my private text");
  });
});

describe("the anthropic provider", () => {
  it("runs a turn with a tool call through the Messages API, its SDK warnings going to the log", async () => {
    const h = await startHarness({ llm: { provider: "anthropic", apiKey: "sk-ant-test" } });
    routeSdkWarnings(h.log);
    try {
      h.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] }, { text: "read_file reads files." });

      const result = await h.turn("what does read_file do?");

      expect(result).toMatchObject({ text: "read_file reads files.", toolCalls: ["get_tool_info"] });
      const [first, second] = h.fake.requests;
      expect(first!.path).toBe("/v1/messages");
      expect(first!.headers["x-api-key"]).toBe("sk-ant-test");
      expect(systemPromptOf(first!)).toContain("## Tool Guide");
      // The stable part ends in a cache breakpoint; with no summary and no equipped skill there is nothing after it.
      const blocks = first!.body.system as Array<{ text: string; cache_control?: unknown }>;
      expect(blocks.map((block) => block.cache_control)).toEqual([{ type: "ephemeral" }]);
      expect(blocks[0]!.text).toMatch(/^## Identity/);
      expect(h.fake.lastToolResults()).toHaveLength(1);
      expect(h.fake.lastToolResults()[0]!.content).toMatch(/^read_file\(path: string, /);
      // The core tools are sent, the others named in the catalog, the same array on every request.
      expect(first!.body.tools!.map((t) => t.name)).toEqual(["get_tool_info", "write_file"]);
      expect(offeredToolNamesOf(first!)).toContain("read_file");
      expect(second!.body.tools).toEqual(first!.body.tools);
      // The anthropic provider warns that it capped maxOutputTokens for an unknown model.
      expect(h.logs.find((r) => r.msg === "language model warnings")).toMatchObject({ level: 40, model: "fake-model" });
    } finally {
      globalThis.AI_SDK_LOG_WARNINGS = undefined;
      await h.close();
    }
  });
});
