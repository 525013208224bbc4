/**
 * The whole gateway in-process on a free port, with the fake OpenAI server as its model and a fresh data dir.
 * `restart()` builds a new gateway on the same data dir, as a process restart would; `restartWith(settings)` also
 * keeps the port, with the settings changed.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { configSchemaFor, type ChannelModules, type Config, type ConfigInput, type Modules } from "../../src/config.js";
import { channelModules } from "../../src/channels/modules.js";
import { collectSecrets } from "../../src/config.js";
import { Gateway } from "../../src/app.js";
import type { Clock } from "../../src/core/clock.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";

export interface ApiReply {
  status: number;
  body: { replies?: Array<{ text: string; attachments: unknown[] }>; outcome?: string; error?: string };
}

export interface TestGateway {
  gateway: Gateway;
  fake: FakeOpenAI;
  config: Config;
  url: string;
  logs: LogRecord[];
  post(body: unknown): Promise<ApiReply>;
  restart(): Promise<void>;
  /**
   * Stops the gateway, runs `whileDown`, and starts a new one on the same data dir and port with `settings` over
   * the first ones (each top-level section replaced, `http` merged): an operator who changed the configuration and
   * restarted, so a page left open reconnects to it.
   */
  restartWith(settings: ConfigInput, whileDown?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/**
 * `withLlm: false` leaves the model unconfigured; `modules` replaces the lists of channel and feature modules;
 * `clock` is the channels' live-reply clock, the router's (typing, the acknowledgement) and the fake model's (its
 * streaming delays).
 */
export async function startTestGateway(overrides: ConfigInput = {}, opts: { withLlm?: boolean; modules?: Modules; clock?: Clock } = {}): Promise<TestGateway> {
  const { clock } = opts;
  const given = opts.modules ?? {};
  const modules = clock ? { ...given, channels: withClock(given.channels ?? channelModules, clock) } : given;
  const fake = await startFakeOpenAI(clock ? { clock } : {});
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-e2e-"));
  const llm = opts.withLlm === false ? {} : { baseUrl: fake.url, model: "fake-model", apiKey: "sk-e2e-secret", maxRetries: 0, timeoutMs: 10_000 };
  const configFor = (input: ConfigInput): Config =>
    configSchemaFor(modules).parse({
      ...input,
      dataDir,
      http: { port: 0, ...input.http },
      llm: { ...llm, ...input.llm },
      log: { level: "debug" },
    });
  const config = configFor(overrides);
  const { log, logs } = captureLog(collectSecrets(config, modules));

  const t: TestGateway = {
    gateway: undefined as unknown as Gateway,
    fake,
    config,
    url: "",
    logs,
    async post(body) {
      const response = await fetch(`${t.url}/api/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(t.config.http.token ? { authorization: `Bearer ${t.config.http.token}` } : {}) },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as ApiReply["body"] };
    },
    async restart() {
      await t.gateway.stop();
      await boot();
    },
    async restartWith(settings, whileDown) {
      const port = Number(new URL(t.url).port);
      await t.gateway.stop();
      await whileDown?.();
      t.config = configFor({ ...overrides, ...settings, http: { ...overrides.http, ...settings.http, port } });
      await boot();
    },
    async close() {
      await t.gateway.stop();
      await fake.close();
    },
  };
  const boot = async () => {
    t.gateway = await Gateway.create(t.config, { log, modules, clock });
    t.url = (await t.gateway.start()).url;
  };
  await boot();
  return t;
}

/** The modules, each building its channel with `clock`. */
function withClock(modules: ChannelModules, clock: Clock): ChannelModules {
  return modules.map((module) => ({ ...module, create: (deps: Parameters<typeof module.create>[0]) => module.create({ ...deps, clock }) }));
}

export interface ChatSocket {
  ws: WebSocket;
  frames: Array<Record<string, unknown>>;
  send(frame: unknown): void;
  /** Resolves with the first frame (after `after` frames seen) matching `match`, within a deadline. */
  waitFor(match: (frame: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): void;
}

export async function openChat(baseUrl: string, chatId: string, userId = "alice"): Promise<ChatSocket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`);
  const frames: Array<Record<string, unknown>> = [];
  const listeners = new Set<() => void>();
  ws.on("message", (data) => {
    frames.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const l of listeners) l();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const socket: ChatSocket = {
    ws,
    frames,
    send: (frame) => ws.send(JSON.stringify(frame)),
    waitFor(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(match);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no matching frame within ${timeoutMs} ms; frames: ${JSON.stringify(frames)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () => ws.close(),
  };
  socket.send({ type: "hello", chatId, userId });
  await socket.waitFor((f) => f.type === "history");
  return socket;
}

/** The user texts the fake model saw in a request, oldest first. */
export function userTextsOf(request: { body: { messages?: Array<Record<string, unknown> & { role: string }> } }): string[] {
  return (request.body.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}
