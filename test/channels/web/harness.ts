/** A real HttpServer on 127.0.0.1:0 with a real WebChannel over a real store, for the web tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { createWebChannel, type WebChannel } from "../../../src/channels/web/index.js";
import { targetOf, type InboundHandler } from "../../../src/core/types.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { createLogger } from "../../../src/infra/log.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";

export interface WebHarness {
  url: string;
  http: HttpServer;
  channel: WebChannel;
  store: Store;
  dataDir: string;
  /** Every log line written, as JSON text. */
  logs: string[];
  /** Stops server, channel and store; keeps dataDir (for restarts). */
  stop(): Promise<void>;
  /** stop() and delete dataDir. */
  close(): Promise<void>;
}

export interface WebHarnessOptions {
  token?: string | null;
  maxTextLength?: number;
  turnTimeoutMs?: number;
  maxUploadBytes?: number;
  /** Reuse the files and store of an earlier harness: a restart. */
  dataDir?: string;
  storeUrl?: string | null;
  /** Builds the message handler; default: echo the text back as a reply. */
  handler?: (channel: WebChannel) => InboundHandler;
  /** Called before start(), e.g. to add test routes. */
  beforeStart?: (http: HttpServer) => void;
}

export const echo =
  (channel: WebChannel): InboundHandler =>
  async (m) => {
    await channel.sendText(targetOf(m), `echo: ${m.text}`, { replyTo: m.platformMessageId });
    return "answered";
  };

export async function startWeb(opts: WebHarnessOptions = {}): Promise<WebHarness> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), "switchboard-web-")));
  const logs: string[] = [];
  const log = createLogger({ level: "debug", secrets: [], destination: { write: (line: string) => void logs.push(line) } });
  const store = await createStore({ url: opts.storeUrl ?? null, dataDir, log, keyPrefix: `test-web-${process.pid}:` });
  const http = new HttpServer({
    host: "127.0.0.1",
    port: 0,
    token: opts.token ?? null,
    log,
  });
  const channel = createWebChannel({
    store,
    log,
    http,
    dataDir,
    maxTextLength: opts.maxTextLength ?? 1000,
    trustUserIds: opts.token !== undefined && opts.token !== null,
    ...(opts.turnTimeoutMs !== undefined ? { turnTimeoutMs: opts.turnTimeoutMs } : {}),
    ...(opts.maxUploadBytes !== undefined ? { maxUploadBytes: opts.maxUploadBytes } : {}),
    botName: "Testbot",
  });
  await channel.start((opts.handler ?? echo)(channel));
  opts.beforeStart?.(http);
  const { url } = await http.start();
  const stop = async (): Promise<void> => {
    await channel.stop();
    await http.stop();
    await store.close();
  };
  return {
    url,
    http,
    channel,
    store,
    dataDir,
    logs,
    stop,
    close: async () => {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** startWeb for a test file: every harness it starts is closed after each test. */
export function webPerTest(): (opts?: WebHarnessOptions) => Promise<WebHarness> {
  const open: WebHarness[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
  });
  return async (opts = {}) => {
    const h = await startWeb(opts);
    open.push(h);
    return h;
  };
}

export async function postMessage(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(`${url}/api/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A promise with its resolve, to make handlers wait for the test. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}
