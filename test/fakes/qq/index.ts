/**
 * A fake QQ bot platform for tests: the token endpoint, the OpenAPI and the gateway on one server at 127.0.0.1 with
 * a free port (point apiUrl at `url`, tokenUrl at `tokenUrl`); events go out over the gateway, or by webhook signed
 * with ed25519 the way the platform signs them.
 */
import { createPrivateKey, randomUUID, sign } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeQqApi, json, type Sent } from "./api.js";
import { FakeQqGateway } from "./gateway.js";
import { eventually } from "../../helpers/wait.js";

export type { Sent } from "./api.js";

export type EventType = "C2C_MESSAGE_CREATE" | "GROUP_AT_MESSAGE_CREATE" | "AT_MESSAGE_CREATE" | "DIRECT_MESSAGE_CREATE" | "INTERACTION_CREATE";

export interface QqEvent {
  type: EventType;
  /** The event id the platform redelivers under. */
  eventId: string;
  data: Record<string, unknown> & { id: string };
  /** The chat id the channel names it by. */
  chat: string;
}

export interface FakeQq {
  url: string;
  tokenUrl: string;
  appId: string;
  appSecret: string;
  api: FakeQqApi;
  gateway: FakeQqGateway;
  settings(): Record<string, unknown>;
  c2c(text: string, opts?: { openid?: string; attachments?: unknown[] }): QqEvent;
  groupAt(text: string, opts?: { group?: string; member?: string }): QqEvent;
  channelAt(text: string, opts?: { channel?: string; guild?: string }): QqEvent;
  direct(text: string, opts?: { guild?: string }): QqEvent;
  /** A press on a keyboard button carrying `data`, in a private chat or (with `group`) a group. */
  interaction(data: string, opts?: { openid?: string; group?: string }): QqEvent;
  /** Sends an event over the gateway. */
  dispatch(event: QqEvent): void;
  /** POSTs an event (or any payload) to a webhook URL, signed; `secret` signs with another secret. */
  pushWebhook(url: string, payload: object, opts?: { secret?: string }): Promise<{ status: number; body: unknown }>;
  webhookPayload(event: QqEvent): object;
  waitForSent(count: number, timeoutMs?: number): Promise<Sent[]>;
  close(): Promise<void>;
}

/** The platform's signing key: the secret repeated to 32 bytes is the ed25519 seed. */
export function platformKey(secret: string) {
  const seed = Buffer.from(secret.repeat(Math.ceil(32 / Buffer.byteLength(secret)) + 1)).subarray(0, 32);
  return createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]), format: "der", type: "pkcs8" });
}

export async function startFakeQq(): Promise<FakeQq> {
  const appId = "102030405";
  const appSecret = "fakeQQsecret0123";
  let url = "";
  const api = new FakeQqApi(appId, appSecret, () => `${url.replace(/^http/, "ws")}/websocket`);
  const gateway = new FakeQqGateway((token) => api.tokenValid(token));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void api.handle(req, res, Buffer.concat(chunks)).catch((err: unknown) => json(res, 500, { code: 500, message: String(err) })));
  });
  server.on("upgrade", (req, socket, head) => gateway.upgrade(req, socket, head));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const event = (type: EventType, chat: string, data: Record<string, unknown>): QqEvent => {
    const id = `ROBOT1.0_${randomUUID().replace(/-/g, "")}`;
    api.delivered(id, chat);
    return { type, eventId: `${type}:${randomUUID()}`, chat, data: { id, timestamp: new Date().toISOString(), ...data } };
  };
  const webhookPayload = (e: QqEvent) => ({ op: 0, id: e.eventId, t: e.type, d: e.data });
  return {
    url,
    tokenUrl: `${url}/app/getAppAccessToken`,
    appId,
    appSecret,
    api,
    gateway,
    settings: () => ({ appId, appSecret, apiUrl: url, tokenUrl: `${url}/app/getAppAccessToken` }),
    c2c: (text, opts = {}) => {
      const openid = opts.openid ?? "E4F4AEA33253A2797FB897C50B81D7ED";
      return event("C2C_MESSAGE_CREATE", `c2c:${openid}`, { content: text, author: { user_openid: openid }, ...(opts.attachments ? { attachments: opts.attachments } : {}) });
    },
    groupAt: (text, opts = {}) => {
      const group = opts.group ?? "C9F778FE6ADF9D1D1DBE395BF744A33A";
      return event("GROUP_AT_MESSAGE_CREATE", `group:${group}`, { content: ` ${text}`, group_openid: group, author: { member_openid: opts.member ?? "E4F4AEA33253A2797FB897C50B81D7ED" } });
    },
    channelAt: (text, opts = {}) => {
      const channel = opts.channel ?? "1234567";
      return event("AT_MESSAGE_CREATE", `channel:${channel}`, { content: `<@!bot-1> ${text}`, channel_id: channel, guild_id: opts.guild ?? "9876543", author: { id: "1111", username: "alice", bot: false } });
    },
    direct: (text, opts = {}) => {
      const guild = opts.guild ?? "5555";
      return event("DIRECT_MESSAGE_CREATE", `dm:${guild}`, { content: text, guild_id: guild, channel_id: "777", author: { id: "1111", username: "alice" } });
    },
    interaction: (data, opts = {}) => {
      const openid = opts.openid ?? "E4F4AEA33253A2797FB897C50B81D7ED";
      const where = opts.group ? { chat_type: 1, group_openid: opts.group, group_member_openid: openid } : { chat_type: 2, user_openid: openid };
      const chat = opts.group ? `group:${opts.group}` : `c2c:${openid}`;
      const id = `interaction-${randomUUID()}`;
      return { type: "INTERACTION_CREATE", eventId: `INTERACTION_CREATE:${id}`, chat, data: { id, type: 11, ...where, data: { type: 11, resolved: { button_data: data, button_id: data } } } };
    },
    dispatch: (e) => gateway.dispatch(e.type, e.data, e.eventId),
    webhookPayload,
    pushWebhook: async (target, payload, opts = {}) => {
      const body = JSON.stringify(payload);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = sign(null, Buffer.from(timestamp + body), platformKey(opts.secret ?? appSecret)).toString("hex");
      const response = await fetch(target, { method: "POST", headers: { "content-type": "application/json", "x-signature-ed25519": signature, "x-signature-timestamp": timestamp, "x-bot-appid": appId }, body });
      return { status: response.status, body: (await response.json().catch(() => null)) as unknown };
    },
    waitForSent: async (count, timeoutMs = 10_000) => {
      await eventually(() => api.sent.length >= count, `${count} messages sent to the fake QQ (got ${api.sent.length})`, timeoutMs);
      return api.sent;
    },
    close: async () => {
      gateway.close();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
