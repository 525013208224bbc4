import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { configSchema } from "../../src/config.js";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { createFilesystemHandler } from "../../src/handlers/filesystem.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { createDelegationHandler, createSystemHandler } from "../../src/handlers/system.js";
import { Delegation } from "../../src/agents/delegation.js";
import { DEFAULT_AGENT_ID, defaultAgentProfile } from "../../src/core/agents.js";
import type { ToolDefinition } from "../../src/core/tools.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { definitionsOf } from "../helpers/handler-spec.js";
import { sessionRecords } from "../helpers/session-records.js";
import { assertToolDefinitionsValid } from "./tool-rules.js";

const log = pino({ level: "silent" });
let dir: string;
let store: Store;
let systemTools: ToolDefinition[];
const filesystemTools = definitionsOf(createFilesystemHandler());

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-tool-definitions-"));
  store = await createStore({ url: null, dataDir: dir, log, keyPrefix: "test:" });
  const { thinking, turnLog } = sessionRecords(store, log);
  const catalog = new ToolCatalog(new HandlerRegistry({ log, defaultTimeoutMs: 1_000 }));
  const agents = { choose: () => Promise.reject(new Error("unused")), profile: () => defaultAgentProfile(), maxParallelDelegations: 3 };
  const delegation = new Delegation({ turns: { runTurn: () => Promise.reject(new Error("unused")) }, agents, limits: { maxSteps: 3, maxTokens: 5_000, historyTokenBudget: 2_000 } });
  systemTools = [
    ...definitionsOf(createSystemHandler({ catalog, thinking, turnLog, llm: configSchema.parse({}).llm })),
    ...definitionsOf(createDelegationHandler(delegation, { helpers: [{ id: DEFAULT_AGENT_ID, name: null }], timeoutMs: 60_000 })),
  ];
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("tool definitions", () => {
  it("system and filesystem tools follow the shared rules", () => {
    assertToolDefinitionsValid([...systemTools, ...filesystemTools]);
  });

  it("the rules reject a bad definition", () => {
    const bad: ToolDefinition = {
      name: "bad_tool",
      category: "Test",
      shortDescription: "Too short",
      description: "Does things.",
      input: z.object({}),
      risk: "read",
    };
    expect(() => assertToolDefinitionsValid([bad])).toThrow(/shortDescription length/);
    const noExample = {
      ...bad,
      shortDescription: "A long enough short description for a tool",
      description: "When to use: ".padEnd(200, "x"),
    };
    expect(() => assertToolDefinitionsValid([noExample])).toThrow(/example call/);
    expect(() => assertToolDefinitionsValid([...systemTools, ...systemTools])).toThrow(/duplicate tool names/);
  });
});
