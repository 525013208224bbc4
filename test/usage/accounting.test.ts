import { afterEach, describe, expect, it } from "vitest";
import { inboundMessage } from "../agent/harness.js";
import { PRICES, startUsageWorld, type UsageWorld } from "./usage-world.js";

const cost = (input: number, cached: number, output: number): number => ((input - cached) * PRICES.input + cached * PRICES.cachedInput + output * PRICES.output) / 1e6;

describe("usage accounting", () => {
  let w: UsageWorld;
  afterEach(async () => w.close());

  it("records OpenAI-compatible usage with and without cached tokens, streamed and not; /usage shows the sum of the blocks", async () => {
    w = await startUsageWorld();
    w.h.fake.enqueue(
      { text: "one", usage: { input: 1_200, output: 30, cachedInput: 1_000 } },
      { text: "two", usage: { input: 400, output: 20 } },
      { text: "three", usage: { input: 500, output: 40, cachedInput: 100 } },
    );
    await w.h.turn("first", { agent: w.agent });
    // A watched turn streams its step: the usage comes from stream_options.include_usage.
    await w.h.turn("second", { agent: w.agent, onEvent: () => undefined });
    await w.h.turn("third", { agent: w.agent, onEvent: () => undefined });
    expect(w.h.fake.requests.filter((r) => r.body.stream === true).every((r) => (r.body.stream_options as { include_usage?: boolean }).include_usage)).toBe(true);

    const sum = { input: 0, output: 0, cached: 0 };
    for (const u of w.h.fake.usages) Object.assign(sum, { input: sum.input + u.input, output: sum.output + u.output, cached: sum.cached + (u.cachedInput ?? 0) });
    expect(sum).toEqual({ input: 2_100, output: 90, cached: 1_100 });
    const { daily, monthly } = await w.reader.current("user", { channel: "web", userId: "user-ann", chatId: "chat-1" }, w.clock.now());
    expect(daily).toMatchObject({ input: 2_100, cachedInput: 1_100, output: 90, tokens: 2_190, calls: 3, estimated: 0 });
    expect(daily.cost).toBeCloseTo(cost(1_200, 1_000, 30) + cost(400, 0, 20) + cost(500, 100, 40), 12);
    expect(monthly).toEqual(daily);
    const text = await w.usage();
    expect(text).toContain("Today: 2,100 input (1,100 cached) + 90 output tokens");
    expect(text).toContain("This month: 2,100 input (1,100 cached) + 90 output tokens");
  });

  it("counts with the tokenizer, marked estimated, when the provider sends no usage", async () => {
    w = await startUsageWorld();
    w.h.fake.enqueue({ text: "an answer of a few words", usage: null });
    await w.h.turn("how many tokens is this?", { agent: w.agent });
    const { daily } = await w.reader.current("user", { channel: "web", userId: "user-ann", chatId: "chat-1" }, w.clock.now());
    expect(daily.estimated).toBe(1);
    expect(daily.input).toBeGreaterThan(10);
    expect(daily.output).toBe(6);
    expect(await w.usage()).toContain("1 estimated");
  });

  it("records Anthropic usage: cache reads as cached input, cache writes as input", async () => {
    w = await startUsageWorld({ llm: { provider: "anthropic", apiKey: "sk-ant-test", maxOutputTokens: 1_000 } });
    w.h.fake.enqueue({ text: "hi", usage: { input: 3_000, output: 50, cachedInput: 2_000, cacheCreation: 500 } }, { text: "again", usage: { input: 100, output: 5 } });
    await w.h.turn("hello", { agent: w.agent });
    await w.h.turn("hello again", { agent: w.agent, onEvent: () => undefined });
    const { daily } = await w.reader.current("user", { channel: "web", userId: "user-ann", chatId: "chat-1" }, w.clock.now());
    expect(daily).toMatchObject({ input: 3_100, cachedInput: 2_000, output: 55, calls: 2 });
    expect(daily.cost).toBeCloseTo(cost(3_000, 2_000, 50) + cost(100, 0, 5), 12);
  });

  it("counts a scheduled task's turn to its creator as task work, and owners see everyone's use", async () => {
    w = await startUsageWorld();
    w.h.fake.enqueue({ text: "task done", usage: { input: 70, output: 7 } }, { text: "chat", usage: { input: 10, output: 1 } });
    const creator = { sender: { id: "user-bo", name: "Bo" }, chat: { id: "group-9", type: "group" as const } };
    await w.h.turn("the task's prompt", { agent: w.agent, sessionKey: "task:t1", work: "task", message: inboundMessage("the task's prompt", creator) });
    await w.h.turn("hi", { agent: w.agent });
    expect(await w.reader.report("work", "2026-03-01", w.clock.now())).toEqual([
      { name: "task", input: 70, cachedInput: 0, output: 7, cost: cost(70, 0, 7), calls: 1, images: 0, imageCost: 0 },
      { name: "chat", input: 10, cachedInput: 0, output: 1, cost: cost(10, 0, 1), calls: 1, images: 0, imageCost: 0 },
    ]);
    expect((await w.reader.report("user", "2026-03-01", w.clock.now())).map((row) => row.name)).toEqual(["web:user-bo", "web:user-ann"]);
    expect(await w.usage("", "user-bo")).toContain("Today: 70 input + 7 output tokens");
    expect(await w.usage("all")).toBe("Only owners can see everyone's use. /usage shows your own.");
    const all = await w.usage("all", "owner-1");
    expect(all).toContain("Today: 80 input + 8 output tokens");
    expect(all).toContain("- web:user-bo: 77 tokens");
  });
});
