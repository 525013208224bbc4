/** The real agent with memory and profile wired in through its port, over the agent harness (fake LLM, real store). */
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/agent/llm.js";
import type { ConfigInput } from "../../src/config.js";
import { createMemoryHandler } from "../../src/handlers/memory.js";
import { createProfileHandler, timezoneRecordOf } from "../../src/handlers/profile.js";
import { memoryConfigSchema } from "../../src/memory/config.js";
import { createMemory, createTurnRecall, type Memory } from "../../src/memory/index.js";
import { ZonePreferences } from "../../src/scheduler/zone-preferences.js";
import { FIXED_NOW, inboundMessage, startHarness, type Harness } from "../agent/harness.js";
import { systemPromptOf, turnNotesOf } from "../fakes/openai-server.js";
import { sessionRecords } from "../helpers/session-records.js";

export interface AgentWorld {
  h: Harness;
  agent: Agent;
  memory: Memory;
  /** Runs a turn as `userId` in the shared group (or their direct chat) and returns the system prompt it got. */
  turnAs(userId: string, text: string, where?: "group" | "direct"): Promise<string>;
}

export async function startAgentWorld(opts: { llm?: ConfigInput["llm"]; fromCompaction?: boolean } = {}): Promise<AgentWorld> {
  const harness = await startHarness({ llm: opts.llm });
  const memory = createMemory({
    store: harness.store,
    config: memoryConfigSchema.parse({}),
    log: harness.log,
    timezones: timezoneRecordOf(new ZonePreferences(harness.store, "UTC")),
  });
  const memoryTools = createMemoryHandler(memory.engine);
  harness.registry.register(memoryTools);
  const profileTools = createProfileHandler(memory.profiles);
  harness.registry.register(profileTools);
  const { config, registry, catalog, store, log } = harness;
  const agent = new Agent({
    config,
    secrets: [],
    model: createModel(config.llm),
    registry,
    catalog,
    ...sessionRecords(store, log),
    log,
    now: () => FIXED_NOW,
    memory: createTurnRecall(memory.engine, memory.profiles, { fromCompaction: opts.fromCompaction ?? true }),
  });
  return {
    h: harness,
    agent,
    memory,
    turnAs: async (userId, text, where = "group") => {
      const before = harness.fake.requests.length;
      const chat = where === "group" ? { id: "team", type: "group" as const, title: "Team" } : { id: `dm-${userId}`, type: "direct" as const };
      await harness.turn(text, {
        agent,
        sessionKey: `telegram:${chat.id}`,
        message: inboundMessage(text, { channel: "telegram", chat, sender: { id: userId, name: userId } }),
      });
      const request = harness.fake.requests[before]!;
      return `${systemPromptOf(request)}\n\n${turnNotesOf(request)}`;
    },
  };
}
