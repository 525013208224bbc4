/**
 * A real TelegramChannel over a real store and HTTP server, talking to the fake Bot API. The default handler
 * records each message and answers "echo: <text>" the way the router would.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TelegramChannel } from "../../../src/channels/telegram/channel.js";
import { telegramConfigSchema } from "../../../src/channels/telegram/config.js";
import type { PollerTiming } from "../../../src/channels/telegram/polling.js";
import type { RetryPolicy } from "../../../src/channels/telegram/retry.js";
import { targetOf, type InboundHandler, type InboundMessage } from "../../../src/core/types.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import type { Logger } from "../../../src/infra/log.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram/server.js";
import { captureLog, type LogRecord } from "../../helpers/captured-log.js";

export interface TelegramHarness {
  fake: FakeTelegram;
  channel: TelegramChannel;
  store: Store;
  dataDir: string;
  /** The gateway HTTP server's base URL (webhook tests). */
  url: string;
  log: Logger;
  logs: LogRecord[];
  http: HttpServer;
  /** Messages the handler was given, oldest first. */
  received: InboundMessage[];
  /** Stops channel and server, then starts new ones on the same store: a restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TelegramHarnessOptions {
  /** `channels.telegram` settings beyond the token and the fake's apiRoot. */
  settings?: Record<string, unknown>;
  handler?: (channel: TelegramChannel, received: InboundMessage[]) => InboundHandler;
  fake?: FakeTelegram;
  /** Default: the fake's own token. */
  token?: string;
  retry?: Partial<RetryPolicy>;
  polling?: Partial<PollerTiming>;
}

export const FAST_RETRY: Partial<RetryPolicy> = { baseDelayMs: 20, maxDelayMs: 100 };
export const FAST_POLLING: Partial<PollerTiming> = { backoff: { baseMs: 20, maxMs: 200 } };

export const echo =
  (channel: TelegramChannel, received: InboundMessage[]): InboundHandler =>
  async (m) => {
    received.push(m);
    await channel.sendText(targetOf(m), `echo: ${m.text}`, { replyTo: m.platformMessageId });
    return "answered";
  };

export async function startTelegram(opts: TelegramHarnessOptions = {}): Promise<TelegramHarness> {
  const fake = opts.fake ?? (await startFakeTelegram());
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-telegram-"));
  // No redaction: the tests check that the token never reaches a log line at all.
  const { log, logs } = captureLog([]);
  const store = await createStore({ url: null, dataDir, log });
  const token = opts.token ?? fake.token;
  const settings = telegramConfigSchema.parse({ token, apiRoot: fake.url, pollTimeoutSec: 1, ...opts.settings });
  const received: InboundMessage[] = [];

  const boot = async () => {
    h.http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
    h.channel = new TelegramChannel({
      settings,
      token,
      store,
      log,
      http: h.http,
      retry: { ...FAST_RETRY, ...opts.retry },
      polling: { ...FAST_POLLING, ...opts.polling },
    });
    await h.channel.start((opts.handler ?? echo)(h.channel, received));
    h.url = (await h.http.start()).url;
  };
  const shutdown = async () => {
    await h.channel.stop();
    await h.http.stop();
  };

  const h: TelegramHarness = {
    fake,
    channel: undefined as unknown as TelegramChannel,
    store,
    dataDir,
    url: "",
    log,
    logs,
    http: undefined as unknown as HttpServer,
    received,
    restart: async () => {
      await shutdown();
      await boot();
    },
    close: async () => {
      await shutdown();
      await store.close();
      await fake.close();
    },
  };
  await boot();
  return h;
}

export { eventually } from "../../helpers/wait.js";

export const logged = (logs: LogRecord[], pattern: RegExp): LogRecord | undefined => logs.find((r) => pattern.test(r.msg));
