import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { budgetsConfigSchema, Periods, registerUsageCommand, UsageMeter, UsageReader, usageRoutes } from "../../src/usage/index.js";
import { ManualClock } from "../helpers/clock.js";
import { silentLog } from "../scheduler/helpers.js";
import { START } from "./usage-world.js";

describe("usage reports", () => {
  let dir: string;
  let store: Store;
  const clock = new ManualClock(START);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-usage-"));
    store = await createStore({ url: null, dataDir: dir, log: silentLog });
    const meter = new UsageMeter({
      config: budgetsConfigSchema.parse({}),
      tallies: store.tallies("usage"),
      coordinator: store.coordinator,
      periods: new Periods("UTC"),
      clock,
      priceOf: (model) => (model === "big" ? { input: 10, output: 30 } : undefined),
      isOwner: () => false,
    });
    const record = async (userId: string, model: string, input: number, output: number) => {
      const call = { owner: { channel: "telegram", userId, chatId: "g1" }, work: "chat" as const, model, estimateInput: () => 0, maxOutputTokens: undefined };
      await (await meter.admit(call)).settle({ inputTokens: input, cachedInputTokens: 0, outputTokens: output, estimated: false });
    };
    await record("1", "big", 1_000_000, 100_000);
    await record("2", "small", 500, 50);
    // A stop writes the records waiting in memory, for the CLI's own connection to read.
    await store.close();
    store = await createStore({ url: null, dataDir: dir, log: silentLog });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]): Promise<string[]> => {
    const out: string[] = [];
    const program = new Command().exitOverride();
    const reopened = await createStore({ url: null, dataDir: dir, log: silentLog });
    registerUsageCommand(program, { setup: async () => ({ tallies: reopened.tallies("usage"), timeZone: "UTC", close: () => reopened.close() }), now: () => clock.now(), out: (line) => out.push(line) });
    await program.parseAsync(["usage", ...args], { from: "user" });
    // Closed by the command when it ran; closing again is a no-op.
    await reopened.close();
    return out;
  };

  it("switchboard usage adds up by person and by model, from a reopened store", async () => {
    expect(await cli()).toEqual([
      "Model use since 2026-03-01 by user:",
      "telegram:1\t1,000,000 input (0 cached)\t100,000 output\tcost 13.00\t1 calls",
      "telegram:2\t500 input (0 cached)\t50 output\tcost 0.00\t1 calls",
    ]);
    expect((await cli("--by", "model", "--since", "2026-03-04")).map((line) => line.split("\t")[0])).toEqual(["Model use since 2026-03-04 by model:", "big", "small"]);
    expect(await cli("--since", "2026-03-05")).toEqual(["Model use since 2026-03-05 by user:", "(nothing recorded)"]);
  });

  it("switchboard usage refuses a bad --by or --since with what it expects", async () => {
    process.exitCode = 0;
    expect(await cli("--by", "colour")).toEqual(['--by must be one of user, chat, model, day, work, got "colour"']);
    expect(await cli("--since", "March")).toEqual(['--since must be a date as YYYY-MM-DD, got "March"']);
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;
  });

  it("the console route answers totals and rows, and 400 for a bad query", async () => {
    const routes = usageRoutes(new UsageReader(store.tallies("usage"), new Periods("UTC")), clock);
    const body = (await (await routes.request("/?by=day")).json()) as { since: string; totals: { daily: { input: number } }; rows: Array<{ name: string; input: number }> };
    expect(body.since).toBe("2026-03-01");
    expect(body.totals.daily.input).toBe(1_000_500);
    expect(body.rows).toMatchObject([{ name: "2026-03-04", input: 1_000_500 }]);
    const bad = await routes.request("/?by=colour");
    expect(bad.status).toBe(400);
  });
});
