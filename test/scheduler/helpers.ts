/**
 * Scheduler test parts: a clock moved by hand, an in-process channel that records what it sends (and can be
 * told to fail), stores (SQLite on disk, or in memory for tests under fake timers), and a scheduler wired to them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type {
  Channel,
  ChannelName,
  InboundHandler,
  OutboundFile,
  OutboundTarget,
  SentMessage,
} from "../../src/core/types.js";
import { SendError } from "../../src/core/send-error.js";
import { workspaceDirOf } from "../../src/core/session-key.js";
import { ZonePreferences } from "../../src/scheduler/zone-preferences.js";
import { testOutbound } from "../helpers/outbound.js";
import { schedulerConfigSchema, type SchedulerConfig } from "../../src/scheduler/config.js";
import { Scheduler, type NewTask } from "../../src/scheduler/scheduler.js";
import type { Clock } from "../../src/core/clock.js";
import type { Actor } from "../../src/scheduler/types.js";
import { BackendGuard } from "../../src/infra/store/backend-guard.js";
import { createStore, type NamespaceName, type Store } from "../../src/infra/store/index.js";
import { jsonKeyv, KeyvNamespace } from "../../src/infra/store/keyv-namespace.js";
import { KeyvStore } from "../../src/infra/store/keyv-store.js";
import { LocalBus } from "../../src/infra/store/local-bus.js";
import { LocalCoordinator } from "../../src/infra/store/local-coordinator.js";
import type { Logger } from "../../src/infra/log.js";
import { MemoryLists } from "../helpers/memory-lists.js";
import { MemorySets } from "../helpers/memory-sets.js";
import { MemoryTallies } from "../helpers/memory-tallies.js";

export const silentLog = pino({ level: "silent" }) as Logger;

export { ManualClock } from "../helpers/clock.js";

export interface Sent {
  to: OutboundTarget;
  text: string;
  messageId: string;
}

/** A channel in this process: sending records the message; `failures` makes the next sends throw. */
export class RecordingChannel implements Channel {
  readonly capabilities = { maxTextLength: 4096, maxUploadBytes: 1024, edits: false, draftStreaming: false, reactions: false, buttons: false, threads: false, typing: false, voice: "any" } as const;
  readonly sent: Sent[] = [];
  failures = 0;
  private counter = 0;

  constructor(readonly name: ChannelName = "web") {}

  async start(_onMessage: InboundHandler): Promise<void> {}
  async stop(): Promise<void> {}
  status() {
    return { connected: true };
  }

  async sendText(to: OutboundTarget, text: string): Promise<SentMessage[]> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new SendError("platform said 502", { kind: "unavailable" });
    }
    const messageId = `m${++this.counter}`;
    this.sent.push({ to, text, messageId });
    return [{ messageId, sentAt: new Date() }];
  }

  async sendFile(_to: OutboundTarget, _file: OutboundFile): Promise<SentMessage> {
    throw new Error("not used");
  }

  async download(): Promise<string> {
    throw new Error("not used");
  }

  texts(): string[] {
    return this.sent.map((s) => s.text);
  }
}

/** A SQLite store in a fresh directory; `reopen` opens the same file again, as a restarted process would. */
export async function sqliteStore(): Promise<{ store: Store; reopen(): Promise<Store>; cleanup(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-scheduler-"));
  const open = () => createStore({ url: null, dataDir, log: silentLog });
  return { store: await open(), reopen: open, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
}

/** The store code over an in-memory Map: no I/O, so it runs the same under fake timers. */
export function memoryStore(): Store {
  const keyv = jsonKeyv(new Map());
  const guard = new BackendGuard([]);
  const memoryLists = new MemoryLists();
  const memorySets = new MemorySets();
  const memoryTallies = new MemoryTallies();
  return new KeyvStore({
    backend: "sqlite",
    guard,
    namespace: (name) => new KeyvNamespace(keyv, guard, name, "test:"),
    coordinator: new LocalCoordinator(new KeyvNamespace<1>(keyv, guard, "once", "test:")),
    bus: new LocalBus(),
    lists: <T>(name: NamespaceName) => memoryLists.of<T>(name),
    sets: <T>(name: NamespaceName) => memorySets.of<T>(name),
    tallies: (name: NamespaceName) => memoryTallies.of(name),
    write: async ({ sets, removals }) => {
      for (const { namespace, key, text, ttlMs } of sets) await keyv.set(`test:${namespace}:${key}`, (JSON.parse(text) as { value: unknown }).value, ttlMs);
      for (const { namespace, key, id } of removals) await memorySets.of(namespace).remove(key, id);
    },
    roundTrip: async () => undefined,
    shutdown: async () => undefined,
  });
}

export function testConfig(overrides: Partial<SchedulerConfig> = {}): SchedulerConfig {
  return { ...schedulerConfigSchema.parse({}), ...overrides };
}

export interface SchedulerParts {
  store: Store;
  clock?: Clock;
  channel?: RecordingChannel;
  config?: Partial<SchedulerConfig>;
  defaultTimezone?: string;
  /** Immediate send attempts of the outbound service. */
  sendAttempts?: number;
  agent?: ConstructorParameters<typeof Scheduler>[0]["agent"];
  speechOf?: ConstructorParameters<typeof Scheduler>[0]["speechOf"];
}

export function makeScheduler(parts: SchedulerParts): Scheduler {
  const channel = parts.channel;
  return new Scheduler({
    config: testConfig(parts.config),
    zones: new ZonePreferences(parts.store, parts.defaultTimezone ?? "UTC"),
    store: parts.store,
    log: silentLog,
    outbound: testOutbound({
      store: parts.store,
      log: silentLog,
      channelOf: (name) => (channel && channel.name === name ? channel : undefined),
      ...(parts.sendAttempts !== undefined ? { config: { attempts: parts.sendAttempts } } : {}),
    }),
    agent: parts.agent ?? null,
    workspaceOf: (sessionKey) => workspaceDirOf(join(tmpdir(), "switchboard-scheduler-workspaces"), sessionKey),
    ...(parts.clock ? { clock: parts.clock } : {}),
    ...(parts.speechOf ? { speechOf: parts.speechOf } : {}),
  });
}

type UserActor = Extract<Actor, { kind: "user" }>;
export const ALICE: UserActor = { kind: "user", channel: "web", userId: "alice", isOwner: false };
export const BOB: UserActor = { kind: "user", channel: "web", userId: "bob", isOwner: false };

/** A reminder from alice in chat c1 (web), with `overrides`. */
export function reminder(overrides: Partial<NewTask> & Pick<NewTask, "when">): NewTask {
  return {
    name: "drink water",
    kind: "reminder",
    text: "Time to drink water",
    target: { channel: "web", chatId: "c1" },
    chatType: "direct",
    creator: { channel: "web", userId: "alice" },
    ...overrides,
  };
}
