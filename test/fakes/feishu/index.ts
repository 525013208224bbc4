/**
 * A fake Feishu for tests: the Open API over HTTP and the long connection over a WebSocket, on one server at
 * 127.0.0.1 with a free port; the real @larksuiteoapi/node-sdk talks to it with `domain` set to `url`. It also
 * pushes webhook events the way Feishu does (plain, or encrypted and signed).
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Envelope } from "./events.js";
import { FakeLongConnection, SERVICE_ID } from "./long-connection.js";
import { FakeOpenApi, type BotSent } from "./open-api.js";
import { whenEmitted } from "../../helpers/wait.js";
import { pushWebhook, type PushOptions, type WebhookAnswer } from "./webhook-push.js";

export type { BotSent } from "./open-api.js";

export interface FakeFeishuOptions {
  /** Seconds a tenant token lives (Feishu: 7200). The SDK replaces it 180 s early. */
  tokenLifetimeSec?: number;
  /** Refuse the long connection with this code, as Feishu does for an app not set up for it. */
  refuseLongConnection?: { code: number; msg: string };
  /** The clock that stamps edits with the time they arrived (`at`); Date.now when absent. */
  now?: () => number;
}

export interface FakeFeishu {
  /** The `domain` to give the SDK. */
  url: string;
  appId: string;
  appSecret: string;
  botOpenId: string;
  botName: string;
  api: FakeOpenApi;
  socket: FakeLongConnection;
  /** Pushes an event over the long connection; resolves with the client's acknowledgment payload. */
  pushSocket(envelope: Envelope | object): Promise<unknown>;
  /** POSTs an event to `url` as Feishu's webhook delivery does. */
  pushWebhook(url: string, envelope: Envelope | object, opts?: PushOptions): Promise<WebhookAnswer>;
  /** Resolves with the bot's messages once there are at least `count`. */
  waitForSent(count: number, timeoutMs?: number): Promise<BotSent[]>;
  close(): Promise<void>;
}

export const FAKE_APP_ID = "cli_a1b2c3d4e5f60718";
export const FAKE_APP_SECRET = "fake-app-secret-value";
export const FAKE_BOT_OPEN_ID = "ou_bot_switchboard";

export async function startFakeFeishu(opts: FakeFeishuOptions = {}): Promise<FakeFeishu> {
  let port = 0;
  const api = new FakeOpenApi({
    appId: FAKE_APP_ID,
    appSecret: FAKE_APP_SECRET,
    botOpenId: FAKE_BOT_OPEN_ID,
    botName: "Switchboard Bot",
    tokenLifetimeSec: opts.tokenLifetimeSec ?? 7200,
    // The SDK reads service_id with a query-string parser over the whole URL, so it must not come first.
    socketUrl: () => `ws://127.0.0.1:${port}/ws?device_id=fake-device&service_id=${SERVICE_ID}`,
    ...(opts.refuseLongConnection ? { refuseLongConnection: opts.refuseLongConnection } : {}),
    now: opts.now ?? Date.now,
  });
  const socket = new FakeLongConnection();
  const server = createServer((req, res) => {
    void api.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: 500, msg: `fake-feishu: ${String(err)}` }));
    });
  });
  server.on("upgrade", (req, duplex, head) => {
    if ((req.url ?? "").startsWith("/ws")) socket.upgrade(req, duplex, head);
    else duplex.destroy();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;

  const know = (envelope: Envelope | object) => {
    const message = (envelope as Partial<Envelope>).event?.message;
    if (message) api.knowMessage(message.message_id, message.chat_id);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    appId: FAKE_APP_ID,
    appSecret: FAKE_APP_SECRET,
    botOpenId: FAKE_BOT_OPEN_ID,
    botName: "Switchboard Bot",
    api,
    socket,
    pushSocket: (envelope) => {
      know(envelope);
      return socket.push(envelope);
    },
    pushWebhook: (url, envelope, pushOpts) => {
      know(envelope);
      return pushWebhook(url, envelope, pushOpts);
    },
    waitForSent: async (count, timeoutMs = 10_000) => {
      await whenEmitted(() => api.sent.length >= count, api.changes, "change", timeoutMs, () => `${count} bot messages (got ${api.sent.length})`);
      return api.sent;
    },
    close: async () => {
      socket.close();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
