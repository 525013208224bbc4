/**
 * Pictures in usage and budgets: each one the image tools make counted to the person who asked at
 * images.pricePerImage (/usage, switchboard usage, the report by kind of work); a request whose pictures do not all
 * fit in a cost budget refused before it reaches the image endpoint, pictures not made given back, and the warning
 * near a limit given once. The whole gateway, the fake model and a fake image endpoint answering with a real PNG;
 * the meter's permits on SQLite and (with REDIS_URL) Redis.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { configSchema, loadConfig } from "../../src/config.js";
import { budgetsFeature } from "../../src/features/budgets.js";
import { imagesConfigSchema } from "../../src/images/config.js";
import { createStore } from "../../src/infra/store/index.js";
import { ImageBudgetRefusal } from "../../src/core/usage-port.js";
import { Translator } from "../../src/infra/i18n/index.js";
import { budgetsConfigSchema, Periods, registerUsageCommand, UsageMeter, UsageReader } from "../../src/usage/index.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { startFakeMediaAI, type FakeMediaAI, type ImageReply } from "../fakes/media-ai-server.js";
import { solidPng } from "../fakes/media-ai-fixtures.js";
import type { FakeOpenAI } from "../fakes/openai-server.js";
import { ManualClock } from "../helpers/clock.js";
import { closeInOrder } from "../helpers/close.js";
import { placeWorkspaceFile } from "../media/delivery-script.js";
import { silentLog } from "../scheduler/helpers.js";
import { START } from "../usage/usage-world.js";

let gateway: TestGateway | undefined;
let ai: FakeMediaAI | undefined;
afterEach(() => closeInOrder([gateway, ai]).then(() => (gateway = ai = undefined)));

let png: Buffer;
beforeAll(() => {
  png = solidPng();
});

/** The chat the tests draw in, as its usage is read (the chat's scope: the HTTP API without a token posts as one local user). */
const ART = { channel: "web", userId: "", chatId: "art" };

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

  it("pictures that do not all fit are refused before any request to the endpoint, and the model is told how many would", async () => {
    const t = await start({ budgets: { perUser: { daily: { cost: 0.1 } } } });
    // 4 pictures at 0.04 are 0.16, past the 0.10 budget: none is made, and the model asks again for the 2 that fit.
    scriptDraws(t.fake, [
      { prompt: "four squares", n: 4 },
      { prompt: "two squares", n: 2 },
    ]);
    expect(replyText(await t.post({ chatId: "art", userId: "alice", text: "draw four squares" }))).toContain("Here they are.");

    expect(ai!.images.map((call) => call.n)).toEqual([2]);
    const [refused, made] = t.fake.lastToolResults().slice(-2).map((result) => JSON.stringify(result.content));
    expect(refused).toContain("No image was made: 4 pictures would not fit in the budget, 2 would. Of your daily budget of 0.10 in cost, 0.10 in cost is left");
    expect(refused).toContain("Ask again with n of 2 or fewer");
    expect(made).toContain('"ok":true');
    const { reader } = t.gateway.feature(budgetsFeature)!;
    const daily = (await reader.current("chat", ART, Date.now())).daily;
    expect(daily).toMatchObject({ images: 2 });
    expect(daily.cost).toBeCloseTo(0.08);
  });

  it("edit_image is held to the same: pictures that do not all fit make no request", async () => {
    const t = await start({ budgets: { perUser: { daily: { cost: 0.1 } } } });
    await placeWorkspaceFile(t.config.dataDir, "web:art", "photo.png", png);
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "edit_image" } }] },
      { toolCalls: [{ name: "edit_image", arguments: { image: "photo.png", prompt: "make it blue", n: 3 } }] },
      { text: "That is past your budget." },
    );
    await t.post({ chatId: "art", userId: "alice", text: "three blue versions" });
    expect(ai!.images).toHaveLength(0);
    expect(JSON.stringify(t.fake.lastToolResults().at(-1)!.content)).toContain("3 pictures would not fit in the budget, 2 would.");
    expect((await t.gateway.feature(budgetsFeature)!.reader.current("chat", ART, Date.now())).daily.cost).toBe(0);
  });

  it("an endpoint that makes fewer pictures than asked is paid for those: the rest of the reservation is given back", async () => {
    const t = await start({ budgets: { perUser: { daily: { cost: 0.2 } } } });
    ai!.drawWith((): ImageReply => ({ as: "b64_json", count: 1 }));
    scriptDraws(t.fake, [{ prompt: "three squares", n: 3 }]);
    await t.post({ chatId: "art", userId: "alice", text: "draw three squares" });
    expect(ai!.images.map((call) => call.n)).toEqual([3]);
    const { reader } = t.gateway.feature(budgetsFeature)!;
    const daily = (await reader.current("chat", ART, Date.now())).daily;
    expect(daily).toMatchObject({ images: 1 });
    expect(daily.cost).toBeCloseTo(0.04);

    // What came back is budget again: 4 more (0.16) fit beside the 0.04 spent, where the whole reservation of 3 would have left room for 1.
    ai!.drawWith((): ImageReply => ({ as: "b64_json" }));
    scriptDraws(t.fake, [{ prompt: "four squares", n: 4 }]);
    await t.post({ chatId: "art", userId: "alice", text: "now four" });
    expect(ai!.images.map((call) => call.n)).toEqual([3, 4]);
    expect((await reader.current("chat", ART, Date.now())).daily).toMatchObject({ images: 5 });
  });

  it("image spending past budgets.warnAt warns the person once, after the reply, and model calls do not repeat it", async () => {
    const t = await start({ budgets: { perUser: { daily: { cost: 0.1 } } } });
    const say = async (text: string): Promise<string> => replyText(await t.post({ chatId: "art", userId: "alice", text })).trim();
    scriptDraws(t.fake, [{ prompt: "a square" }]);
    // The pictures go first, as replies without text.
    expect(await say("draw one")).toBe("Here they are.");
    // 0.08 of 0.10 is the default 80 %, though 0.8 × 0.1 is 0.08000000000000002 in floating point.
    scriptDraws(t.fake, [{ prompt: "another square" }]);
    expect(await say("one more")).toMatch(/^Here they are\.\n\n\(Note: 80% of your daily budget of 0\.10 in cost is used; it resets at .+\.\)$/);
    t.fake.enqueue({ text: "You are welcome." });
    expect(await say("thanks")).toBe("You are welcome.");
    expect(ai!.images).toHaveLength(2);
  });
});

describe("images.pricePerImage", () => {
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
});

/** The permits' bounded additions run as one SQLite transaction or one Redis script: both are tried. */
const BACKENDS = [["SQLite", null], ...(process.env.REDIS_URL ? [["Redis", process.env.REDIS_URL] as const] : [])] as const;

describe.each(BACKENDS)("the meter's image permits on %s", (_backend, url) => {
  async function withMeter(budgets: Record<string, unknown>, use: (meter: UsageMeter, reader: UsageReader) => Promise<void>): Promise<void> {
    const dataDir = await mkdtemp(join(tmpdir(), "switchboard-images-usage-"));
    const store = await createStore({ url, dataDir, log: silentLog, keyPrefix: `switchboard-test:${randomUUID()}:` });
    const periods = new Periods("UTC");
    const meter = new UsageMeter({
      config: budgetsConfigSchema.parse(budgets),
      tallies: store.tallies("usage"),
      coordinator: store.coordinator,
      periods,
      clock: new ManualClock(START),
      priceOf: () => undefined,
      isOwner: () => false,
    });
    try {
      await use(meter, new UsageReader(store.tallies("usage"), periods));
    } finally {
      await store.close();
    }
  }

  const owner = { channel: "telegram", userId: "1", chatId: "9" };
  const call = { owner, model: "gpt-image-1", pricePerImage: 0.04 };
  const refusalOf = (meter: UsageMeter, count: number): Promise<unknown> => meter.admitImages({ ...call, count }).then(() => undefined, (err: unknown) => err);

  it("reserves every picture asked for on cost limits only, and refuses those that do not all fit, saying how many would", async () => {
    await withMeter({ perUser: { daily: { cost: 0.1, tokens: 10 } } }, async (meter, reader) => {
      const failed = await meter.admitImages({ ...call, count: 2 });
      expect((await reader.current("user", owner, START)).daily.cost).toBeCloseTo(0.08);
      await failed.settle(null);
      expect((await reader.current("user", owner, START)).daily).toMatchObject({ cost: 0, images: 0 });

      // 3 pictures are 0.12: past the limit, though nothing is spent yet. Nothing is reserved for a refusal.
      const tooMany = await refusalOf(meter, 3);
      expect(tooMany).toBeInstanceOf(ImageBudgetRefusal);
      expect(tooMany).toMatchObject({ fits: 2, message: expect.stringMatching(/^Of your daily budget of 0.10 in cost, 0.10 in cost is left until it resets at .+; a picture costs 0.04\.$/) });
      expect((await reader.current("user", owner, START)).daily.cost).toBe(0);

      // Two asked for, one made: one is paid, the other's reservation given back.
      expect(await (await meter.admitImages({ ...call, count: 2 })).settle(1)).toBeUndefined();
      expect((await reader.current("user", owner, START)).daily).toMatchObject({ images: 1, imageCost: 0.04, tokens: 0 });
      expect((await reader.current("user", owner, START)).daily.cost).toBeCloseTo(0.04);
      expect(await refusalOf(meter, 2)).toMatchObject({ fits: 1 });
      await (await meter.admitImages({ ...call, count: 1 })).settle(1);

      // 0.02 left: not one picture fits, though the budget is not spent.
      expect(await refusalOf(meter, 1)).toMatchObject({ fits: 0, message: expect.stringMatching(/^Of your daily budget of 0.10 in cost, 0.02 in cost is left/) });
      expect((await reader.current("chat", owner, START)).daily.images).toBe(2);
    });
  });

  it("counts pictures made beyond those asked for, and then refuses as a spent budget", async () => {
    await withMeter({ perUser: { daily: { cost: 0.1 } } }, async (meter, reader) => {
      await (await meter.admitImages({ ...call, count: 2 })).settle(3);
      expect((await reader.current("user", owner, START)).daily).toMatchObject({ images: 3, imageCost: 0.12 });
      const refused = await refusalOf(meter, 1);
      expect(refused).toMatchObject({ fits: 0, message: expect.stringMatching(/^You have reached your daily budget of 0.10 in cost \(used 0.12 in cost\)/) });
    });
  });

  it("fits pictures whose decimal prices add up a hair over the limit", async () => {
    await withMeter({ perUser: { daily: { cost: 1 } } }, async (meter, reader) => {
      // 0.04 × 25 is 1.0000000000000002 in floating point.
      await (await meter.admitImages({ ...call, count: 25 })).settle(25);
      expect((await reader.current("user", owner, START)).daily.images).toBe(25);
      expect(await refusalOf(meter, 1)).toMatchObject({ fits: 0 });
    });
  });

  it("the settlement that takes the person past the warning level warns, once per period, in their language, shared with model calls", async () => {
    await withMeter({ perUser: { daily: { cost: 0.2 } }, warnAt: 0.5 }, async (meter) => {
      const zh = new Translator("zh-Hans").speech();
      expect(await (await meter.admitImages({ ...call, count: 2, speech: zh })).settle(2)).toBeUndefined();
      const notice = await (await meter.admitImages({ ...call, count: 1, speech: zh })).settle(1);
      expect(notice).toMatch(/^（提示：你的每日预算（费用 0\.20）已用了 60%/);
      expect(await (await meter.admitImages({ ...call, count: 1 })).settle(1)).toBeUndefined();
      const modelCall = await meter.admit({ owner, work: "chat", model: "m", estimateInput: () => 10, maxOutputTokens: 10 });
      expect(modelCall.notice).toBeUndefined();
      await modelCall.settle(null);
    });
  });
});
