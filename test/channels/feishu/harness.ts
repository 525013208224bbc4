/**
 * The Feishu channel on its own, against the fake Feishu: a real HTTP server (for webhooks), a SQLite store in
 * a fresh directory, a captured log, and an inbound handler that records what the channel hands over.
 */
import { EventEmitter } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FeishuChannel } from "../../../src/channels/feishu/channel.js";
import { feishuConfigSchema } from "../../../src/channels/feishu/config.js";
import type { HandleOutcome, InboundHandler, InboundMessage } from "../../../src/core/types.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { createStore } from "../../../src/infra/store/index.js";
import type { Store } from "../../../src/infra/store/types.js";
import { startFakeFeishu, type FakeFeishu, type FakeFeishuOptions } from "../../fakes/feishu/index.js";
import { whenEmitted } from "../../helpers/wait.js";
import { captureLog, type LogRecord } from "../../helpers/captured-log.js";

export const VERIFICATION_TOKEN = "verify-token";
export const ENCRYPT_KEY = "encrypt-key-for-tests";
export const WEBHOOK_PATH = "/feishu/events";

export interface RigOptions {
  mode?: "websocket" | "webhook";
  encrypted?: boolean;
  replyFormat?: "card" | "post" | "text";
  maxMessageLength?: number;
  fake?: FakeFeishuOptions;
  /** Level of the captured log; default debug. */
  logLevel?: string;
  /** Decides each handed-over message's outcome; default "answered". */
  outcome?: (message: InboundMessage) => Promise<HandleOutcome>;
}

export interface Rig {
  fake: FakeFeishu;
  channel: FeishuChannel;
  store: Store;
  logs: LogRecord[];
  /** Messages the channel handed over, in order. */
  received: InboundMessage[];
  /** The webhook's full URL (webhook mode). */
  webhookUrl: string;
  waitForReceived(count: number, timeoutMs?: number): Promise<InboundMessage[]>;
  close(): Promise<void>;
}

export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const fake = await startFakeFeishu(opts.fake);
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-feishu-"));
  const { log, logs } = captureLog([fake.appSecret, ENCRYPT_KEY, VERIFICATION_TOKEN], opts.logLevel);
  const store = await createStore({ url: null, dataDir, log });
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
  const config = feishuConfigSchema.parse({
    appId: fake.appId,
    appSecret: fake.appSecret,
    domain: fake.url,
    mode: opts.mode ?? "websocket",
    webhook: { path: WEBHOOK_PATH, verificationToken: VERIFICATION_TOKEN, encryptKey: opts.encrypted ? ENCRYPT_KEY : null },
    replyFormat: opts.replyFormat ?? "card",
    maxMessageLength: opts.maxMessageLength ?? 4000,
  });
  const channel = new FeishuChannel({
    config: { ...config, appId: fake.appId, appSecret: fake.appSecret },
    store,
    log,
    http,
    dedupTtlMs: 3_600_000,
    retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
  });
  const received: InboundMessage[] = [];
  const arrivals = new EventEmitter();
  const handler: InboundHandler = async (message) => {
    received.push(message);
    arrivals.emit("change");
    return opts.outcome ? opts.outcome(message) : "answered";
  };
  await channel.start(handler);
  const { url } = await http.start();
  return {
    fake,
    channel,
    store,
    logs,
    received,
    webhookUrl: `${url}${WEBHOOK_PATH}`,
    waitForReceived: async (count, timeoutMs = 5_000) => {
      await whenEmitted(() => received.length >= count, arrivals, "change", timeoutMs, () => `${count} inbound messages (got ${received.length})`);
      return received;
    },
    close: async () => {
      await channel.stop();
      await http.stop();
      await store.close();
      await fake.close();
    },
  };
}
