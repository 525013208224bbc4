/**
 * Usage accounting and budgets' plug: the meter every model call asks (the turn's usage port, which the image tools
 * ask too), /usage, the console's report, the CLI.
 */
import type { ChannelName } from "../core/types.js";
import { budgetsConfigSchema, Periods, priceLookup, registerUsageCommand, usageCommands, UsageMeter, UsageReader, usageRoutes } from "../usage/index.js";
import { modelEntries } from "../infra/config/model-entries.js";
import type { ImagesConfig } from "../images/config.js";
import { defineFeature } from "./module.js";

export const budgetsFeature = defineFeature({
  name: "budgets",
  configSchema: budgetsConfigSchema,
  // A cost limit needs something priced: the models, or the pictures of the image tools.
  reads: ["images"],
  crossChecks: (settings, core, sections) => {
    const scopes = [settings.perUser, settings.perChat, settings.global, ...Object.values(settings.overrides)];
    const inCost = scopes.some((scope) => scope.daily?.cost !== undefined || scope.monthly?.cost !== undefined);
    const images = sections.images as ImagesConfig;
    const priced = modelEntries(core.llm).some((entry) => entry.prices !== null) || (images.baseUrl !== null && images.pricePerImage > 0);
    return inCost && !priced
      ? ["budgets: limits in cost need prices: set llm.prices, or prices on the llm.models entries (input, output per million tokens; 0 for a free model), or images.pricePerImage"]
      : [];
  },
  create: (deps) => {
    const periods = new Periods(deps.core.agent.timezone);
    const tallies = deps.store.tallies("usage");
    const meter = new UsageMeter({
      config: deps.settings,
      tallies,
      coordinator: deps.store.coordinator,
      periods,
      clock: deps.clock,
      priceOf: priceLookup(deps.core.llm),
      isOwner: (channel, userId) => deps.access.isOwner(channel as ChannelName, userId),
    });
    const reader = new UsageReader(tallies, periods);
    return {
      meter,
      reader,
      turn: { usage: meter },
      commands: usageCommands({ reader, clock: deps.clock, isOwner: deps.isOwner }),
      consoleRoutes: { usage: usageRoutes(reader, deps.clock) },
    };
  },
  cli: (program, ctx) =>
    registerUsageCommand(program, {
      setup: async () => {
        const { core } = ctx.setup();
        const store = await ctx.openStore();
        return { tallies: store.tallies("usage"), timeZone: core.agent.timezone, close: () => store.close() };
      },
    }),
});
