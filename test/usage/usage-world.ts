/** The agent of test/agent/harness.ts with the usage meter as its usage port, on a manual clock, and /usage. */
import type { CommandContext } from "../../src/core/commands.js";
import { ENGLISH } from "../../src/infra/i18n/index.js";
import type { Agent } from "../../src/agent/agent.js";
import type { ConfigInput } from "../../src/config.js";
import { budgetsConfigSchema, Periods, priceLookup, usageCommands, UsageMeter, UsageReader } from "../../src/usage/index.js";
import { ManualClock } from "../helpers/clock.js";
import { inboundMessage, startHarness, type Harness } from "../agent/harness.js";

export const PRICES = { input: 2, cachedInput: 0.5, output: 8 };
export const OWNER = "owner-1";
/** 2026-03-04 22:00 UTC: two hours before the day's budgets reset. */
export const START = Date.parse("2026-03-04T22:00:00Z");

export interface UsageWorld {
  h: Harness;
  clock: ManualClock;
  meter: UsageMeter;
  reader: UsageReader;
  agent: Agent;
  /** /usage [args] from `userId` (default Ann, the harness's sender). */
  usage(args?: string, userId?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startUsageWorld(opts: { budgets?: unknown; llm?: ConfigInput["llm"]; storeUrl?: string } = {}): Promise<UsageWorld> {
  const h = await startHarness({ llm: { prices: PRICES, ...opts.llm }, agent: { timezone: "UTC" }, ...(opts.storeUrl ? { storeUrl: opts.storeUrl } : {}) });
  const clock = new ManualClock(START);
  const periods = new Periods("UTC");
  const tallies = h.store.tallies("usage");
  const meter = new UsageMeter({
    config: budgetsConfigSchema.parse(opts.budgets ?? {}),
    tallies,
    coordinator: h.store.coordinator,
    periods,
    clock,
    priceOf: priceLookup(h.config.llm),
    isOwner: (_channel, userId) => userId === OWNER,
  });
  const reader = new UsageReader(tallies, periods);
  const [command] = usageCommands({ reader, clock, isOwner: (ctx) => ctx.message.sender.id === OWNER });
  return {
    h,
    clock,
    meter,
    reader,
    agent: h.makeAgent({ prices: PRICES, ...opts.llm }, { hooks: { usage: meter } }),
    usage: async (args = "", userId = "user-ann") => {
      const ctx = { message: inboundMessage("/usage", { sender: { id: userId } }), sessionKey: h.sessionKey, log: h.log, traceId: "t", speech: ENGLISH } as CommandContext;
      const reply = await command!.run(args, ctx);
      return typeof reply === "string" ? reply : reply.text;
    },
    close: () => h.close(),
  };
}
