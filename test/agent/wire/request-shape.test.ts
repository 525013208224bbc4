/**
 * The request bodies the AI SDK providers send for a turn with history and tools, as the fake OpenAI-compatible and
 * Anthropic servers receive them, against snapshots kept beside this file. The providers build the bytes; an upgrade
 * of `ai`, `@ai-sdk/openai-compatible` or `@ai-sdk/anthropic` that changes them fails here, to be read and
 * accepted (`npx vitest run test/agent/wire/request-shape.test.ts -u`) rather than found in production. The packages
 * are pinned to exact versions in package.json for the same reason.
 */
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createModel } from "../../../src/agent/llm.js";
import { watchedModel } from "../../../src/agent/stream.js";
import { configSchema } from "../../../src/config.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../fakes/openai-server.js";

const history: ModelMessage[] = [
  { role: "user", content: "Remind me to water the plants at 6 pm." },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Setting it up." },
      { type: "tool-call", toolCallId: "call_h1", toolName: "schedule_task", input: { when: "18:00", text: "water the plants" } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_h1", toolName: "schedule_task", output: { type: "json", value: { id: "r-1", due: "18:00" } } }] },
  { role: "assistant", content: "Done: I will remind you at 18:00." },
  { role: "user", content: "What is in notes.txt? 天气 🌦" },
];

const tools = {
  schedule_task: tool({
    description: "Schedules a reminder.",
    inputSchema: jsonSchema({ type: "object", properties: { when: { type: "string" }, text: { type: "string" } }, required: ["when", "text"], additionalProperties: false }),
    execute: () => Promise.resolve("ok"),
  }),
  read_file: tool({
    description: "Reads a file of the chat's workspace.",
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string", description: "Relative to the workspace." } }, required: ["path"] }),
    execute: () => Promise.resolve("buy seeds"),
  }),
};

describe.each([
  { provider: "openai-compatible", apiKey: "sk-test" },
  { provider: "anthropic", apiKey: "sk-ant-test" },
] as const)("the request bytes to $provider", ({ provider, apiKey }) => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake.close();
  });

  it.each([
    { way: "unwatched", watched: false },
    { way: "watched (streamed)", watched: true },
  ])("for a turn with history and tools, $way, are the snapshot's", async ({ way, watched }) => {
    const model = createModel(configSchema.parse({ llm: { provider, baseUrl: fake.url, model: "fake-model", apiKey, maxOutputTokens: 1024 } }).llm);
    fake.enqueue({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "It says: buy seeds." });

    const result = await generateText({
      model: watched ? watchedModel(model, [], () => {}) : model,
      system: "You are a helpful assistant.",
      messages: history,
      tools,
      maxOutputTokens: 1024,
      maxRetries: 0,
      stopWhen: stepCountIs(5),
    });

    expect(result.text).toBe("It says: buy seeds.");
    expect(fake.requests).toHaveLength(2);
    // The second request carries the whole history, this turn's tool call and its result, and the tools.
    const body = JSON.stringify(fake.requests[1]!.body, null, 2);
    await expect(body).toMatchFileSnapshot(`__snapshots__/wire-${provider}-${way.split(" ")[0]}.json`);
  });
});
