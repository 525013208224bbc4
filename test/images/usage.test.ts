/**
 * Pictures in usage and budgets: each one the image tools make counted to the person who asked at
 * images.pricePerImage (/usage, switchboard usage, the report by kind of work), and a spent cost budget refusing
 * generate_image before any request reaches the image endpoint. The whole gateway, the fake model and a fake image
 * endpoint answering with a real PNG.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { configSchema, loadConfig } from "../../src/config.js";
import { budgetsFeature } from "../../src/features/budgets.js";
import { imagesConfigSchema } from "../../src/images/config.js";
import { createStore } from "../../src/infra/store/index.js";
import { BudgetRefusal } from "../../src/core/usage-port.js";
import { budgetsConfigSchema, Periods, registerUsageCommand, UsageMeter, UsageReader } from "../../src/usage/index.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { startFakeMediaAI, type FakeMediaAI } from "../fakes/media-ai-server.js";
import { solidPng } from "../fakes/media-ai-fixtures.js";
import type { FakeOpenAI } from "../fakes/openai-server.js";
import { ManualClock } from "../helpers/clock.js";
import { closeInOrder } from "../helpers/close.js";
import { silentLog } from "../scheduler/helpers.js";
import { START } from "../usage/usage-world.js";

let gateway: TestGateway | undefined;
let ai: FakeMediaAI | undefined;
afterEach(() => closeInOrder([gateway, ai]).then(() => (gateway = ai = undefined)));

let png: Buffer;
beforeAll(() => {
  png = solidPng();
});

/** The model's tokens cost nothing here, so only pictures count. */
const FREE_MODEL = { prices: { input: 0, output: 0 } };

async function start(overrides: Record<string, unknown> = {}): Promise<TestGateway> {
  ai = await startFakeMediaAI(png);
  gateway = await startTestGateway({
    agent: { timezone: "UTC" },
    llm: FREE_MODEL,
    images: { baseUrl: ai.url, apiKey: ai.apiKey, model: "fake-image", pricePerImage: 0.04 },
    ...overrides,
  });
  return gateway;
}

function scriptDraws(fake: FakeOpenAI, draws: ReadonlyArray<Record<string, unknown>>): void {
  fake.enqueue(
    { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "generate_image" } }] },
    ...draws.map((args) => ({ toolCalls: [{ name: "generate_image", arguments: args }] })),
    { text: "Here they are." },
  );
}

const replyText = (answer: Awaited<ReturnType<TestGateway["post"]>>): string => (answer.body.replies ?? []).map((r) => r.text).join("\n");

describe("images in usage", () => {
  it("each picture is counted to the person who asked, with its cost: /usage, the report by work, switchboard usage", async () => {
    const t = await start();
    scriptDraws(t.fake, [{ prompt: "two squares", n: 2 }]);
    expect(replyText(await t.post({ chatId: "art", userId: "alice", text: "draw two squares" }))).toContain("Here they are.");
    expect(ai!.images).toHaveLength(1);

    const usage = replyText(await t.post({ chatId: "art", userId: "alice", text: "/usage" }));
    expect(usage).toMatch(/Today: .*cost 0\.08, 3 model calls; 2 images \(cost 0\.08\)/);

    const { reader } = t.gateway.feature(budgetsFeature)!;
    const today = new Date().toISOString().slice(0, 10);
    const byWork = await reader.report("work", today, Date.now());
    expect(byWork.find((row) => row.name === "image")).toMatchObject({ images: 2, imageCost: 0.08, cost: 0.08, calls: 0, input: 0 });
    expect(byWork.find((row) => row.name === "chat")).toMatchObject({ images: 0, calls: 3 });

    const dataDir = t.config.dataDir;
    await closeInOrder([t]);
    const out: string[] = [];
    const program = new Command().exitOverride();
    const store = await createStore({ url: null, dataDir, log: silentLog });
    registerUsageCommand(program, { setup: async () => ({ tallies: store.tallies("usage"), timeZone: "UTC", close: () => store.close() }), out: (line) => out.push(line) });
    await program.parseAsync(["usage", "--by", "model"], { from: "user" });
    expect(out).toHaveLength(3);
    expect(out.filter((line) => line.includes("image"))).toEqual(["fake-image\t0 input (0 cached)\t0 output\tcost 0.08\t0 calls\t2 images (cost 0.08)"]);
  });

  it("a spent cost budget refuses generate_image with no request to the image endpoint", async () => {
    const t = await start({ budgets: { perUser: { daily: { cost: 0.04 } } } });
    // Two pictures asked for in one step: nothing is spent before them, so one passes (the check and its reservation
    // are one step) and the other finds its 0.04 and is refused.
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "generate_image" } }] },
      { toolCalls: [{ name: "generate_image", arguments: { prompt: "a red square" } }, { name: "generate_image", arguments: { prompt: "a blue square" } }] },
    );
    const answer = replyText(await t.post({ chatId: "art", userId: "alice", text: "draw two squares" }));

    expect(ai!.images).toHaveLength(1);
    const calls = t.logs.filter((l) => l.msg === "tool call" && l.tool === "generate_image");
    expect(calls.map((l) => [l.ok, l.code]).sort()).toEqual([
      [false, "denied"],
      [true, undefined],
    ]);
    // Nor is the model asked again: the budget is spent.
    expect(t.fake.requests).toHaveLength(2);
    expect(answer).toContain("You have reached your daily budget of 0.04 in cost (used 0.04 in cost)");

    scriptDraws(t.fake, [{ prompt: "a green square" }]);
    expect(replyText(await t.post({ chatId: "art", userId: "alice", text: "one more" }))).toMatch(/^You have reached your daily budget/);
    expect(ai!.images).toHaveLength(1);
    expect(t.fake.requests).toHaveLength(2);
  });
});

describe("the meter's image permits", () => {
  it("images.pricePerImage is a price: 0 by default, never negative", () => {
    expect(imagesConfigSchema.parse({}).pricePerImage).toBe(0);
    const parsed = configSchema.safeParse({ images: { pricePerImage: -0.04 } });
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["images.pricePerImage"]);
  });

  it("a cost budget needs something priced: the pictures alone will do", async () => {
    const dir = await mkdtemp(join(tmpdir(), "images-budget-"));
    const configPath = join(dir, "switchboard.yaml");
    const budget = "budgets:\n  perUser:\n    daily:\n      cost: 1\n";
    await writeFile(configPath, budget);
    expect(() => loadConfig({ configPath, env: {}, cwd: dir })).toThrow(/budgets: limits in cost need prices: .*images\.pricePerImage/);
    await writeFile(configPath, `${budget}images:\n  baseUrl: http://127.0.0.1:9/v1\n  pricePerImage: 0.04\n`);
    expect(loadConfig({ configPath, env: {}, cwd: dir }).budgets.perUser.daily?.cost).toBe(1);
  });

  it("reserve the pictures asked for on cost limits only, give it back when the request fails, refuse once spent", async () => {
    const store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-images-usage-")), log: silentLog });
    const periods = new Periods("UTC");
    const meter = new UsageMeter({
      config: budgetsConfigSchema.parse({ perUser: { daily: { cost: 0.1, tokens: 10 } } }),
      tallies: store.tallies("usage"),
      coordinator: store.coordinator,
      periods,
      clock: new ManualClock(START),
      priceOf: () => undefined,
      isOwner: () => false,
    });
    const reader = new UsageReader(store.tallies("usage"), periods);
    const owner = { channel: "telegram", userId: "1", chatId: "9" };
    const call = { owner, model: "gpt-image-1", pricePerImage: 0.04 };
    try {
      const failed = await meter.admitImages({ ...call, count: 2 });
      expect((await reader.current("user", owner, START)).daily.cost).toBeCloseTo(0.08);
      await failed.settle(null);
      expect((await reader.current("user", owner, START)).daily).toMatchObject({ cost: 0, images: 0 });

      await (await meter.admitImages({ ...call, count: 3 })).settle(3);
      expect((await reader.current("user", owner, START)).daily).toMatchObject({ images: 3, imageCost: 0.12, tokens: 0 });
      const refused = await meter.admitImages({ ...call, count: 1 }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(BudgetRefusal);
      expect((refused as Error).message).toMatch(/^You have reached your daily budget of 0.10 in cost \(used 0.12 in cost\)/);
      expect((await reader.current("chat", owner, START)).daily.images).toBe(3);
    } finally {
      await store.close();
    }
  });
});
