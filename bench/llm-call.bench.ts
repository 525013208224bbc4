/**
 * What one model call costs the caller's CPU through each layer of the AI SDK, against the same instant fake
 * server (in a child process): the provider's raw calls, generateText plain and with each step streamed to a
 * watcher, over fetch and over undici's request (requestFetch, what the agent uses), the watched turn as the agent
 * runs it (createModel's model, streamed through its fetch), and streamText as the agent ran it before. Web
 * streams were most of what live replies cost per message on Node 20.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, streamText, tool, type ToolSet } from "ai";
import { createModel } from "../src/agent/llm.js";
import { watchedModel } from "../src/agent/stream.js";
import { configSchema } from "../src/config.js";
import { requestFetch } from "../src/agent/wire/request-fetch.js";
import type { BenchResult } from "./types.js";

const CALLS = 2_000;
const CONCURRENCY = 20;
const WARM_UP = 200;

export async function run(): Promise<BenchResult> {
  const server = fork(fileURLToPath(new URL("./llm-server.ts", import.meta.url)), [], { execArgv: ["--import", "tsx"] });
  const [url] = (await once(server, "message")) as [string];
  try {
    const model = createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "sk-bench" }).chatModel("fake-model");
    const overRequest = createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "sk-bench", fetch: requestFetch({ timeoutMs: 60_000 }) }).chatModel("fake-model");
    // What the agent runs: requestFetch, and a watched step streamed through the fetch (LiveCompletions).
    const agentModel = createModel(configSchema.parse({ llm: { baseUrl: url, model: "fake-model", apiKey: "sk-bench", maxRetries: 0 } }).llm);
    const messages = [{ role: "user" as const, content: "hi" }];
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
    const ways: Array<[string, () => Promise<unknown>]> = [
      ["provider doGenerate (no AI SDK call layer)", async () => model.doGenerate({ prompt })],
      ["provider doStream, read to the end", async () => {
        const { stream } = await model.doStream({ prompt });
        for await (const part of stream) void part;
      }],
      ["generateText (the agent's turn nobody watches)", () => generateText({ model, messages, maxRetries: 0 })],
      ["generateText, each step streamed to a watcher (the watched turn over fetch)", () =>
        generateText({ model: watchedModel(model, [], () => {}), messages, maxRetries: 0 })],
      ["generateText over undici's request instead of fetch (requestFetch)", () => generateText({ model: overRequest, messages, maxRetries: 0 })],
      ["the watched turn over requestFetch, each step by doStream (Anthropic's way)", () =>
        generateText({ model: watchedModel(overRequest, [], () => {}), messages, maxRetries: 0 })],
      ["the watched turn as the agent runs it for OpenAI-compatible endpoints (streamed through the fetch)", () =>
        generateText({ model: watchedModel(agentModel, [], () => {}), messages, maxRetries: 0 })],
      ["the same watched turn with 27 tools (14 KB of JSON) handed to the provider", () =>
        generateText({ model: watchedModel(agentModel, [], () => {}), messages, tools: TOOLS, maxRetries: 0 })],
      ["streamText, fullStream + onFinish (the watched turn before)", async () => {
        let finished = false;
        const result = streamText({ model, messages, maxRetries: 0, onFinish: () => void (finished = true) });
        for await (const part of result.fullStream) void part;
        if (!finished) throw new Error("streamText did not finish");
      }],
      ["streamText, fullStream + 5 result promises (the watched turn before that)", async () => {
        const result = streamText({ model, messages, maxRetries: 0 });
        for await (const part of result.fullStream) void part;
        await Promise.all([result.text, result.response, result.finishReason, result.steps, result.totalUsage]);
      }],
    ];
    // Every way warmed up before any is measured, so no way pays for the JIT of code the others share.
    for (const [, call] of ways) for (let i = 0; i < WARM_UP; i++) await call();
    const measured: Array<[string, number]> = [];
    for (const [way, call] of ways) measured.push([way, await cpuPerCall(call)]);
    const baseline = measured.find(([way]) => way.startsWith("generateText"))![1];
    const rows = measured.map(([way, cpu]) => ({ way, "CPU per call": `${cpu.toFixed(3)} ms`, "vs generateText": `${(cpu / baseline).toFixed(2)}x` }));
    return {
      name: "llm-call",
      workload: `${CALLS} calls per way, ${CONCURRENCY} at a time, after ${WARM_UP} of each to warm up; fake OpenAI-compatible server in a child process answering one sentence (streamed in 5-character pieces)`,
      rows,
    };
  } finally {
    server.kill();
  }
}

/** 27 tools of about the agent's (compact schemas of three to five parameters, ~520 bytes of JSON each). */
const TOOLS: ToolSet = Object.fromEntries(
  Array.from({ length: 27 }, (_, i) => {
    const properties = Object.fromEntries(
      Array.from({ length: 3 + (i % 3) }, (_, p) => [`param_${p}`, { type: "string" as const, description: `What parameter ${p} of tool ${i} is for, in a short sentence.` }]),
    );
    const schema = jsonSchema({ type: "object", properties, required: ["param_0"], additionalProperties: false });
    return [`tool_${i}`, tool({ description: `Tool ${i}: does one thing the agent may need, described in a sentence or two.`, inputSchema: schema, execute: () => Promise.resolve("ok") })];
  }),
);

async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  const started = process.cpuUsage();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < CALLS) await call();
  }));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / CALLS;
}
