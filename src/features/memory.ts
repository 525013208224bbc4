/** Long-term memory's plug: the memory and profile tools, recall in the prompt, /memory and /forget, the CLI. */
import { createMemoryHandler } from "../handlers/memory.js";
import { createProfileHandler, timezoneRecordOf } from "../handlers/profile.js";
import { memoryConfigSchema } from "../memory/config.js";
import { createMemory, createTurnRecall, memoryCommands, registerMemoryCommands } from "../memory/index.js";
import { ZonePreferences } from "../scheduler/zone-preferences.js";
import { defineFeature } from "./module.js";

export const memoryFeature = defineFeature({
  name: "memory",
  configSchema: memoryConfigSchema,
  secretPaths: ["embeddings.apiKey"],
  create: ({ settings, store, log, zones, isOwner }) => {
    if (!settings.enabled) return { memory: null };
    const memory = createMemory({ store, config: settings, log, timezones: timezoneRecordOf(zones) });
    return {
      memory,
      handlers: [createMemoryHandler(memory.engine), createProfileHandler(memory.profiles)],
      commands: memoryCommands(memory, { isOwner }),
      turn: { memory: createTurnRecall(memory.engine, memory.profiles, { fromCompaction: settings.fromCompaction }) },
      stop: () => memory.engine.settled(),
    };
  },
  cli: (program, ctx) =>
    registerMemoryCommands(program, {
      channels: ctx.channelNames,
      setup: async () => {
        const { settings, core, log } = ctx.setup();
        const store = await ctx.openStore();
        const timezones = timezoneRecordOf(new ZonePreferences(store, core.agent.timezone));
        return { memory: createMemory({ store, config: settings, log, timezones }), store };
      },
    }),
});
