/**
 * A fake DingTalk for tests: the server APIs, the oapi media store, session webhooks and the Stream gateway on one
 * server at 127.0.0.1 with a free port (point both apiUrl and oapiUrl at `url`), and builders of robot messages.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeDingtalkApi, json, type Sent } from "./api.js";
import { FakeStreamGateway } from "./stream.js";
import { eventually } from "../../helpers/wait.js";

export type { Sent } from "./api.js";

export interface RobotMessageOptions {
  /** The sender's staff id. */
  from?: string;
  /** A group's conversation id (`cid...`); absent: a one-to-one chat. */
  group?: string;
  msgId?: string;
  msgtype?: string;
  content?: Record<string, unknown>;
  /** Minutes the session webhook stays valid (DingTalk: about 90); 0: already expired. */
  webhookMinutes?: number;
}

export interface FakeDingtalk {
  url: string;
  clientId: string;
  clientSecret: string;
  cardTemplateId: string;
  api: FakeDingtalkApi;
  stream: FakeStreamGateway;
  settings(): Record<string, unknown>;
  /** The data of a robot callback, as DingTalk sends it. */
  robotMessage(text: string, opts?: RobotMessageOptions): Record<string, unknown> & { msgId: string };
  waitForSent(count: number, timeoutMs?: number): Promise<Sent[]>;
  close(): Promise<void>;
}

export async function startFakeDingtalk(): Promise<FakeDingtalk> {
  const clientId = "dingfakeclient0001";
  const clientSecret = "fake-dingtalk-client-secret";
  const cardTemplateId = "fake-ai-card.schema";
  let url = "";
  const api = new FakeDingtalkApi(clientId, clientSecret, clientId, cardTemplateId, () => url);
  const stream = new FakeStreamGateway(clientId, clientSecret, () => `${url.replace(/^http/, "ws")}/connect`);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      if (req.url === "/v1.0/gateway/connections/open") {
        let body: Record<string, unknown> | null = null;
        try {
          body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
        } catch {
          body = null;
        }
        stream.handleOpen(req, res, body);
        return;
      }
      void api.handle(req, res, raw).catch((err: unknown) => json(res, 500, { code: "InternalError", message: String(err) }));
    });
  });
  server.on("upgrade", (req, socket, head) => stream.upgrade(req, socket, head));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clientId,
    clientSecret,
    cardTemplateId,
    api,
    stream,
    settings: () => ({ clientId, clientSecret, apiUrl: url, oapiUrl: url }),
    robotMessage: (text, opts = {}) => {
      const from = opts.from ?? "manager4321";
      const group = opts.group;
      if (group) api.groups.add(group);
      const expiresAt = Date.now() + (opts.webhookMinutes ?? 90) * 60_000;
      const msgtype = opts.msgtype ?? "text";
      return {
        conversationId: group ?? `cid${from}single==`,
        chatbotCorpId: "dingcorp01",
        chatbotUserId: "$:LWCP_v1:$robot",
        msgId: opts.msgId ?? `msg${randomUUID().replace(/-/g, "")}`,
        senderNick: "张三",
        isAdmin: false,
        senderStaffId: from,
        senderId: `$:LWCP_v1:$${from}`,
        sessionWebhookExpiredTime: expiresAt,
        createAt: Date.now(),
        senderCorpId: "dingcorp01",
        conversationType: group ? "2" : "1",
        ...(group ? { conversationTitle: "项目群", isInAtList: true } : {}),
        sessionWebhook: api.issueSession(expiresAt),
        robotCode: clientId,
        msgtype,
        ...(msgtype === "text" ? { text: { content: group ? ` ${text}` : text } } : { content: opts.content ?? {} }),
      };
    },
    waitForSent: async (count, timeoutMs = 10_000) => {
      await eventually(() => api.sent.length >= count, `${count} messages sent to the fake DingTalk (got ${api.sent.length})`, timeoutMs);
      return api.sent;
    },
    close: async () => {
      stream.close();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
