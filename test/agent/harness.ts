/**
 * The agent wired for tests: the real registry with the system and file tools, a real SQLite (or Redis) store in a
 * temp directory, the real AI SDK provider pointed at the fake OpenAI server, and the log captured as records.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../../src/agent/agent.js";
import type { TurnInput, TurnResult } from "../../src/core/turn.js";
import type { TurnHooks } from "../../src/core/turn-hooks.js";
import { createModel, type ModelOptions } from "../../src/agent/llm.js";
import type { InboundMessage } from "../../src/core/types.js";
import { configSchema, type Config, type ConfigInput } from "../../src/config.js";
import { collectSecrets } from "../../src/config.js";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { createFilesystemHandler } from "../../src/handlers/filesystem.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { createSystemHandler } from "../../src/handlers/system.js";
import type { Logger } from "../../src/infra/log.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";
import { sessionRecords } from "../helpers/session-records.js";

export const FIXED_NOW = new Date("2026-03-04T05:06:00Z");

export interface HarnessOptions {
  llm?: ConfigInput["llm"];
  agent?: ConfigInput["agent"];
  /** A store URL (redis://...); default a fresh SQLite file. */
  storeUrl?: string;
}

export interface Harness {
  fake: FakeOpenAI;
  config: Config;
  store: Store;
  registry: HandlerRegistry;
  catalog: ToolCatalog;
  agent: Agent;
  log: Logger;
  logs: LogRecord[];
  workspaceDir: string;
  sessionKey: string;
  /** An agent on the same store and tools, with other llm settings (e.g. a dead endpoint), the features' hooks and its models' clock. */
  makeAgent(llm?: ConfigInput["llm"], opts?: { hooks?: TurnHooks; models?: ModelOptions }): Agent;
  /** Runs a turn in the harness session with a direct message from "Ann". */
  turn(text: string, overrides?: Partial<TurnInput> & { agent?: Agent }): Promise<TurnResult>;
  close(): Promise<void>;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const fake = await startFakeOpenAI();
  const dir = await mkdtemp(join(tmpdir(), "switchboard-agent-"));
  const configFor = (llm: ConfigInput["llm"] = {}): Config =>
    configSchema.parse({
      dataDir: dir,
      llm: { baseUrl: fake.url, model: "fake-model", apiKey: "sk-test-secret-key", maxRetries: 0, timeoutMs: 5_000, ...opts.llm, ...llm },
      agent: { timezone: "Asia/Shanghai", ...opts.agent },
    });
  const config = configFor();
  const { log, logs } = captureLog(collectSecrets(config));
  const store = await createStore({ url: opts.storeUrl ?? null, dataDir: dir, log, keyPrefix: `test-${randomUUID()}:` });
  const registry = new HandlerRegistry({ log, defaultTimeoutMs: 5_000 });
  const catalog = new ToolCatalog(registry);
  const records = sessionRecords(store, log);
  registry.register(createSystemHandler({ catalog, thinking: records.thinking, turnLog: records.turnLog, llm: config.llm }));
  registry.register(createFilesystemHandler());

  const makeAgent = (llm?: ConfigInput["llm"], { hooks = {}, models = {} }: { hooks?: TurnHooks; models?: ModelOptions } = {}): Agent => {
    const agentConfig = configFor(llm);
    return new Agent({ config: agentConfig, secrets: collectSecrets(agentConfig), model: createModel(agentConfig.llm, { log, ...models }), registry, catalog, ...records, log, now: () => FIXED_NOW, ...hooks });
  };
  const agent = makeAgent();
  const workspaceDir = join(dir, "workspaces", "web", "chat-1");
  const sessionKey = "web:chat-1/thread:7";

  return {
    fake,
    config,
    store,
    registry,
    catalog,
    agent,
    log,
    logs,
    workspaceDir,
    sessionKey,
    makeAgent,
    turn: (text, overrides = {}) => {
      const { agent: which = agent, ...input } = overrides;
      const traceId = input.traceId ?? `trace-${randomUUID().slice(0, 8)}`;
      // As the router does: the turn's logger names its trace and session.
      return which.runTurn({
        sessionKey,
        message: inboundMessage(text),
        workspaceDir,
        signal: new AbortController().signal,
        log: log.child({ traceId, sessionKey: input.sessionKey ?? sessionKey }),
        traceId,
        ...input,
      });
    },
    close: async () => {
      await fake.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function inboundMessage(text: string, overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: `web:${randomUUID()}`,
    platformMessageId: randomUUID(),
    channel: "web",
    chat: { id: "chat-1", type: "direct" },
    sender: { id: "user-ann", name: "Ann" },
    text,
    attachments: [],
    mentionsBot: true,
    receivedAt: FIXED_NOW,
    ...overrides,
  };
}

/** The text of the user messages the fake received in `request`, in order. */
export function userTextsOf(messages: Array<{ role: string; content?: unknown }> | undefined): string[] {
  return (messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? `[${part.type}]`).join("\n"),
    );
}
