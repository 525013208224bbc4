import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { BudgetRefusal } from "../../src/core/usage-port.js";
import { budgetsConfigSchema, Periods, UsageMeter } from "../../src/usage/index.js";
import { DEFAULT_SQLITE_FILE } from "../../src/infra/store/store-url.js";
import { ManualClock } from "../helpers/clock.js";
import { queryFile } from "../helpers/sqlite-file.js";
import { silentLog } from "../scheduler/helpers.js";
import { inboundMessage } from "../agent/harness.js";
import { START, startUsageWorld, type UsageWorld } from "./usage-world.js";

const ANN = { channel: "web", userId: "user-ann", chatId: "chat-1" };
const NEXT_DAY = Date.parse("2026-03-05T00:00:00Z");

describe("budgets", () => {
  let w: UsageWorld;
  afterEach(async () => w.close());

  it("warns once at warnAt, refuses without any model request past the limit, and resets when the day starts", async () => {
    w = await startUsageWorld({ budgets: { perUser: { daily: { tokens: 1_000 } } } });
    w.h.fake.enqueue(
      { text: "first", usage: { input: 500, output: 350 } },
      { text: "second", usage: { input: 50, output: 50 } },
      { text: "third", usage: { input: 100, output: 100 } },
    );
    expect((await w.h.turn("1", { agent: w.agent })).text).toBe("first");
    const warned = (await w.h.turn("2", { agent: w.agent })).text;
    expect(warned).toBe("second\n\n(Note: 85% of your daily budget of 1,000 tokens is used; it resets at Thursday 2026-03-05 00:00 (UTC, GMT+00:00).)");
    expect((await w.h.turn("3", { agent: w.agent })).text).toBe("third");

    const refused = await w.h.turn("4", { agent: w.agent });
    expect(refused.text).toBe(
      "You have reached your daily budget of 1,000 tokens (used 1,150 tokens), so I cannot answer until it resets at Thursday 2026-03-05 00:00 (UTC, GMT+00:00).",
    );
    expect(w.h.fake.requests).toHaveLength(3);

    w.clock.advanceTo(NEXT_DAY - 1);
    expect((await w.h.turn("5", { agent: w.agent })).text).toMatch(/^You have reached your daily budget/);
    w.clock.advanceTo(NEXT_DAY);
    w.h.fake.enqueue({ text: "a new day", usage: { input: 10, output: 10 } });
    expect((await w.h.turn("6", { agent: w.agent })).text).toBe("a new day");
    expect(w.h.fake.requests).toHaveLength(4);
  });

  it("a turn that crosses the limit mid-way finishes its step and stops, with what it answered and the limit", async () => {
    w = await startUsageWorld({ budgets: { perChat: { daily: { tokens: 1_000 } } } });
    w.h.fake.enqueue({ text: "Looking it up.", toolCalls: [{ name: "get_tool_info", arguments: { name: "get_session_logs" } }], usage: { input: 900, output: 200 } });
    const result = await w.h.turn("look it up", { agent: w.agent });
    expect(w.h.fake.requests).toHaveLength(1);
    expect(result.toolCalls).toEqual(["get_tool_info"]);
    expect(result.text).toBe(
      "Looking it up.\n\nYou have reached this chat's daily budget of 1,000 tokens (used 1,100 tokens), so I cannot answer until it resets at Thursday 2026-03-05 00:00 (UTC, GMT+00:00).",
    );
    // The finished step is kept: the next turn (another day) sees the tool call and its result.
    w.clock.advanceTo(NEXT_DAY);
    w.h.fake.enqueue({ text: "done" });
    await w.h.turn("go on", { agent: w.agent });
    expect(w.h.fake.requests[1]!.body.messages!.some((m) => m.role === "tool")).toBe(true);
  });

  it("a cost limit counts the model's prices; owners are exempt, overrides replace a person's limits", async () => {
    // 0.01 is 5,000 input tokens at 2 per million.
    const budgets = { perUser: { monthly: { cost: 0.01 } }, overrides: { "web:user-vip": { monthly: { cost: 100 } } } };
    w = await startUsageWorld({ budgets });
    w.h.fake.respondWith(() => ({ text: "ok", usage: { input: 6_000, output: 0 } }));
    const as = (id: string) => ({ agent: w.agent, message: inboundMessage("hi", { sender: { id } }) });
    expect((await w.h.turn("hi", as("user-ann"))).text).toBe("ok");
    expect((await w.h.turn("hi", as("user-ann"))).text).toMatch(/^You have reached your monthly budget of 0.01 in cost \(used 0.012 in cost\)/);
    for (const id of ["owner-1", "owner-1", "user-vip", "user-vip"]) expect((await w.h.turn("hi", as(id))).text).toBe("ok");
    expect(w.h.fake.requests).toHaveLength(5);
  });

  it("refuses clearly a budget section it cannot use", () => {
    expect(() => budgetsConfigSchema.parse({ perUser: { daily: {} } })).toThrow(/set tokens, cost or both/);
    expect(() => budgetsConfigSchema.parse({ overrides: { "12345": { daily: { tokens: 1 } } } })).toThrow(/expected channel:id/);
    expect(() => budgetsConfigSchema.parse({ warnAt: 1.5 })).toThrow();
    expect(budgetsConfigSchema.parse({})).toMatchObject({ warnAt: 0.8, exemptOwners: true });
  });
});

describe("budgets on SQLite", () => {
  it("a budget's reservation is written at once; a check counts the usage still waiting in memory, and a stop writes it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-budgets-"));
    const meterOn = (store: Store) =>
      new UsageMeter({
        config: budgetsConfigSchema.parse({ perUser: { daily: { tokens: 1_000 } } }),
        tallies: store.tallies("usage"),
        coordinator: store.coordinator,
        periods: new Periods("UTC"),
        clock: new ManualClock(START),
        priceOf: () => undefined,
        isOwner: () => false,
      });
    const call = { owner: ANN, work: "chat" as const, model: "fake-model", estimateInput: () => 100, maxOutputTokens: 100 };
    const store = await createStore({ url: null, dataDir, log: silentLog });
    try {
      const meter = meterOn(store);
      // The reservation (a bounded addition) is written at once; no step here yields to timers, so the settlement
      // is still in memory when the budget is checked.
      await (await meter.admit(call)).settle({ inputTokens: 900, cachedInputTokens: 0, outputTokens: 200, estimated: false });
      const stored = queryFile(join(dataDir, DEFAULT_SQLITE_FILE), "SELECT sum FROM tallies WHERE tally_key LIKE '%user-ann:2026-03-04' AND field = 'tokens'");
      expect(stored).toEqual([{ sum: 200 }]);
      expect(await meter.refusal(ANN)).toMatch(/^You have reached your daily budget of 1,000 tokens \(used 1,100 tokens\)/);
      await expect(meter.admit(call)).rejects.toThrow(BudgetRefusal);
    } finally {
      await store.close();
    }
    const reopened = await createStore({ url: null, dataDir, log: silentLog });
    try {
      expect(await meterOn(reopened).refusal(ANN)).toMatch(/\(used 1,100 tokens\)/);
    } finally {
      await reopened.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)("budgets on Redis", () => {
  const stores: Store[] = [];
  afterEach(async () => Promise.all(stores.splice(0).map((store) => store.close())));

  it("two replicas racing for the last of a budget: exactly one model call is admitted", async () => {
    const keyPrefix = `switchboard-test:${randomUUID()}:`;
    const clock = new ManualClock(START);
    const replica = async (): Promise<UsageMeter> => {
      const store = await createStore({ url: process.env.REDIS_URL!, dataDir: "/nonexistent", log: silentLog, keyPrefix });
      stores.push(store);
      const config = budgetsConfigSchema.parse({ global: { daily: { tokens: 10_000 } } });
      return new UsageMeter({ config, tallies: store.tallies("usage"), coordinator: store.coordinator, periods: new Periods("UTC"), clock, priceOf: () => undefined, isOwner: () => false });
    };
    const [a, b] = [await replica(), await replica()];
    const call = { owner: ANN, work: "chat" as const, model: "fake-model", estimateInput: () => 100, maxOutputTokens: 100 };
    const first = await a.admit(call);
    await first.settle({ inputTokens: 9_000, cachedInputTokens: 0, outputTokens: 999, estimated: false });
    const racing = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).admit(call)));
    expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(racing.filter((r) => r.status === "rejected").every((r) => r.reason instanceof BudgetRefusal)).toBe(true);
    expect(await b.refusal(ANN)).toMatch(/^You have reached the bot's daily budget of 10,000 tokens/);
  });
});
