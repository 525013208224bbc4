/**
 * The IM Channel part wired for tests: real SQLite store in a temp directory, the real registry with the IM
 * Channel tools, TestChannels as the platforms, and a ToolContext for a turn in one of them. `restart()` builds
 * everything again on the same data directory, as a process restart would.
 */
import { testOutbound } from "../helpers/outbound.js";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Agent } from "../../src/agent/agent.js";
import type { TurnResult } from "../../src/core/turn.js";
import { createModel } from "../../src/agent/llm.js";
import type { ChannelName, InboundMessage } from "../../src/core/types.js";
import { collectSecrets, configSchema, type Config, type ConfigInput } from "../../src/config.js";
import { ToolCatalog } from "../../src/handlers/catalog.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { createSystemHandler } from "../../src/handlers/system.js";
import type { ToolContext, ToolOutcome } from "../../src/core/tools.js";
import { createImChannelHandler } from "../../src/handlers/im-channel.js";
import { createMedia, type Media } from "../../src/media/index.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";
import type { FakeOpenAI } from "../fakes/openai-server.js";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { TestChannel } from "./test-channel.js";
import { Workspaces } from "../../src/infra/workspace.js";
import { sessionRecords } from "../helpers/session-records.js";
import { SessionDirectory } from "../../src/sessions/directory.js";

export interface ImHarness {
  dir: string;
  config: Config;
  store: Store;
  im: Media;
  registry: HandlerRegistry;
  /** The chats the gateway has heard from (a turn's router notes each). */
  directory: SessionDirectory;
  channels: Map<ChannelName, TestChannel>;
  logs: LogRecord[];
  workspaceDir: string;
  /** A context for a turn started by `message` (default: a direct message in telegram chat "chat-1"). */
  context(overrides?: Partial<ToolContext>): ToolContext;
  call(tool: string, input: unknown, ctx?: ToolContext): Promise<ToolOutcome>;
  /** Calls the tool and returns its output; throws when it failed. */
  output<T = Record<string, unknown>>(tool: string, input: unknown, ctx?: ToolContext): Promise<T>;
  /** Writes a file into the workspace; returns its path relative to the workspace. */
  writeWorkspaceFile(relative: string, content: string | Buffer): Promise<string>;
  /** Runs an agent turn for `message` in its chat's session, with the media step (needs the `fake` option). */
  turn(message: InboundMessage): Promise<TurnResult>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface ImHarnessOptions {
  media?: ConfigInput["media"];
  llm?: ConfigInput["llm"];
  channels?: TestChannel[];
  /** The fake LLM (and STT) server the agent talks to. */
  fake?: FakeOpenAI;
}

export async function startImHarness(opts: ImHarnessOptions = {}): Promise<ImHarness> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "switchboard-im-")));
  const llm = opts.fake ? { baseUrl: opts.fake.url, model: "fake-model", apiKey: "sk-im-test-key", maxRetries: 0, timeoutMs: 5_000 } : {};
  const config = configSchema.parse({ dataDir: dir, media: opts.media ?? {}, llm: { ...llm, ...opts.llm } });
  const { log, logs } = captureLog([]);
  const channels = new Map<ChannelName, TestChannel>((opts.channels ?? [new TestChannel("telegram")]).map((c) => [c.name, c]));
  const workspaceDir = join(dir, "workspaces", "telegram_chat-1");

  const build = async (): Promise<{ store: Store; im: Media; registry: HandlerRegistry; directory: SessionDirectory }> => {
    const store = await createStore({ url: null, dataDir: dir, log });
    const channelOf = (name: ChannelName) => channels.get(name);
    const outbound = testOutbound({ store, log, channelOf });
    const directory = new SessionDirectory(store, log);
    const isKnownChat = (channel: ChannelName, chatId: string) => directory.isKnownChat(channel, chatId);
    const im = createMedia({ config, secrets: collectSecrets(config), store, log, channelOf, outbound, workspacesRoot: Workspaces.rootOf(config.dataDir), isKnownChat });
    const registry = new HandlerRegistry({ log, defaultTimeoutMs: 10_000 });
    const records = sessionRecords(store, log);
    registry.register(createSystemHandler({ catalog: new ToolCatalog(registry), thinking: records.thinking, turnLog: records.turnLog, llm: config.llm }));
    registry.register(createImChannelHandler({ media: im, channelOf, history: records.history }));
    return { store, im, registry, directory };
  };

  const h: ImHarness = {
    dir,
    config,
    channels,
    logs,
    workspaceDir,
    ...(await build()),
    context: (overrides = {}) =>
      makeToolContext({
        sessionKey: "telegram:chat-1",
        channel: "telegram",
        chatId: "chat-1",
        message: inbound("please send it"),
        workspaceDir,
        log,
        ...overrides,
      }),
    call: (tool, input, ctx) => h.registry.executeByTool(tool, input, ctx ?? h.context()),
    async output<T>(tool: string, input: unknown, ctx?: ToolContext): Promise<T> {
      const outcome = await h.call(tool, input, ctx);
      if (!outcome.ok) throw new Error(`${tool} failed: ${outcome.code}: ${outcome.error}`);
      return outcome.output as T;
    },
    async writeWorkspaceFile(relative, content) {
      const path = join(workspaceDir, relative);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
      return relative;
    },
    turn(message) {
      const catalog = new ToolCatalog(h.registry);
      const agent = new Agent({ config, secrets: collectSecrets(config), model: createModel(config.llm), registry: h.registry, catalog, ...sessionRecords(h.store, log), log, prepareMedia: (input, turnLog) => h.im.inbound.prepare(input, turnLog) });
      return agent.runTurn({
        sessionKey: `${message.channel}:${message.chat.id}`,
        message,
        workspaceDir,
        signal: new AbortController().signal,
        log,
        traceId: "trace-turn",
      });
    },
    async restart() {
      await h.store.close();
      Object.assign(h, await build());
    },
    async close() {
      await h.store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** A direct message from Ann in telegram chat "chat-1". */
export function inbound(text: string, overrides: Partial<InboundMessage> = {}): InboundMessage {
  const platformMessageId = overrides.platformMessageId ?? String(Math.floor(Math.random() * 1e9));
  return {
    id: `telegram:${platformMessageId}`,
    platformMessageId,
    channel: "telegram",
    chat: { id: "chat-1", type: "direct" },
    sender: { id: "user-ann", name: "Ann" },
    text,
    attachments: [],
    mentionsBot: true,
    receivedAt: new Date("2026-03-04T05:06:00Z"),
    ...overrides,
  };
}
