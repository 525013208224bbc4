/**
 * A fake WeCom for tests: the server API on 127.0.0.1 with a free port (point `apiUrl` at `url`), and WeCom's
 * side of the encrypted callback, pushing to the gateway's callback URL.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeWecomApi, sendJson, type SentMessage } from "./api.js";
import { push, textXml, verifyUrl, type Answer, type CallbackKeys, type PushOptions } from "./callback.js";
import { eventually } from "../../helpers/wait.js";

export type { SentMessage } from "./api.js";
export { messageXml, nextMsgId, textXml } from "./callback.js";

export interface FakeWecom {
  url: string;
  keys: CallbackKeys;
  corpSecret: string;
  api: FakeWecomApi;
  /** Settings for `channels.wecom` that point at this fake; `callbackUrl` is where pushes go. */
  settings(): Record<string, unknown>;
  /** Pushes plaintext XML, encrypted and signed, to `callbackUrl`. */
  push(callbackUrl: string, plaintext: string, opts?: PushOptions): Promise<Answer>;
  pushText(callbackUrl: string, from: string, content: string, msgId?: string): Promise<Answer>;
  verifyUrl(callbackUrl: string, opts?: PushOptions): Promise<Answer & { plain: string }>;
  waitForSent(count: number, timeoutMs?: number): Promise<SentMessage[]>;
  close(): Promise<void>;
}

/** A 43-character EncodingAESKey, as the admin console generates them. */
export const FAKE_AES_KEY = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";

export async function startFakeWecom(): Promise<FakeWecom> {
  const keys: CallbackKeys = { token: "fake-callback-token", aesKey: FAKE_AES_KEY, corpId: "ww0123456789abcdef", agentId: 1000002 };
  const corpSecret = "fake-wecom-corp-secret";
  const api = new FakeWecomApi(keys.corpId, corpSecret, keys.agentId);
  const server = createServer((req, res) => {
    void api.handle(req, res).catch((err: unknown) => sendJson(res, 500, { errcode: -1, errmsg: String(err) }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    keys,
    corpSecret,
    api,
    settings: () => ({ corpId: keys.corpId, corpSecret, agentId: keys.agentId, token: keys.token, aesKey: keys.aesKey, apiUrl: url }),
    push: (callbackUrl, plaintext, opts) => push(callbackUrl, keys, plaintext, opts),
    pushText: (callbackUrl, from, content, msgId) => push(callbackUrl, keys, textXml(keys, from, content, msgId)),
    verifyUrl: (callbackUrl, opts) => verifyUrl(callbackUrl, keys, opts),
    waitForSent: async (count, timeoutMs = 10_000) => {
      await eventually(() => api.sent.length >= count, `${count} messages sent to the fake WeCom (got ${api.sent.length})`, timeoutMs);
      return api.sent;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
