/**
 * DingTalk's Stream gateway as documented: `POST /v1.0/gateway/connections/open` answers XML unless the request
 * accepts JSON, refuses wrong credentials, and issues a single-use ticket; the WebSocket refuses a missing or used
 * ticket. Frames are JSON `{specVersion, type, headers, data}`; SYSTEM `ping` must be answered with code 200 and the
 * same data; a CALLBACK is pushed again (under a new push id, the same robot msgId) until it is acknowledged.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

export const ROBOT_TOPIC = "/v1.0/im/bot/messages/get";

export interface Ack {
  code: number;
  headers: { messageId?: string; contentType?: string };
  message?: string;
  data?: string;
}

export class FakeStreamGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly sockets = new Set<WebSocket>();
  private readonly events = new EventEmitter();
  /** Every acknowledgment and ping answer received, in order. */
  readonly replies: Ack[] = [];
  /** Requests to open a connection, with the Accept header they carried. */
  readonly opens: Array<{ accept: string | undefined; subscriptions: unknown }> = [];
  connections = 0;
  /** Frames pushed so far (callbacks, pings, disconnects). */
  pushed = 0;

  constructor(
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly wsUrl: () => string,
  ) {
    this.events.setMaxListeners(100);
  }

  handleOpen(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | null): void {
    const accept = req.headers.accept;
    this.opens.push({ accept, subscriptions: body?.subscriptions });
    if (body?.clientId !== this.clientId || body.clientSecret !== this.clientSecret) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "InvalidAuthentication", message: "clientId or clientSecret is invalid" }));
      return;
    }
    if (!Array.isArray(body.subscriptions) || body.subscriptions.length === 0) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "InvalidParameter", message: "subscriptions is required" }));
      return;
    }
    const ticket = randomUUID();
    this.tickets.add(ticket);
    const answer = { endpoint: this.wsUrl(), ticket };
    if (!accept?.includes("application/json")) {
      res.writeHead(200, { "content-type": "application/xml" });
      res.end(`<OpenConnectionResponse><endpoint>${answer.endpoint}</endpoint><ticket>${ticket}</ticket></OpenConnectionResponse>`);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer));
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ticket = new URL(req.url ?? "/", "http://fake").searchParams.get("ticket") ?? "";
    if (!this.tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.add(ws);
      this.connections += 1;
      ws.on("close", () => this.sockets.delete(ws));
      ws.on("message", (data) => {
        this.replies.push(JSON.parse(String(data)) as Ack);
        this.events.emit("reply");
      });
      this.events.emit("connection");
    });
  }

  /** Pushes a robot message; resolves with the acknowledgment. Unacknowledged within `redeliverAfterMs`, it is pushed again under a new id. */
  async pushRobot(data: object, opts: { redeliverAfterMs?: number; maxPushes?: number } = {}): Promise<Ack> {
    const maxPushes = opts.maxPushes ?? 3;
    for (let attempt = 1; ; attempt += 1) {
      const messageId = this.frame("CALLBACK", ROBOT_TOPIC, JSON.stringify(data));
      const ack = await this.waitForReply(messageId, opts.redeliverAfterMs ?? 10_000).catch(() => undefined);
      if (ack) return ack;
      if (attempt >= maxPushes) throw new Error(`the robot message was not acknowledged after ${attempt} pushes`);
    }
  }

  /** Sends a SYSTEM ping; resolves with its answer. */
  ping(): Promise<Ack> {
    const opaque = JSON.stringify({ opaque: randomUUID() });
    const messageId = this.frame("SYSTEM", "ping", opaque);
    return this.waitForReply(messageId, 5_000);
  }

  /** SYSTEM disconnect, as DingTalk sends before it closes a connection. */
  disconnect(): void {
    this.frame("SYSTEM", "disconnect", JSON.stringify({ reason: "server maintenance" }));
  }

  /** Drops every connection without a word. */
  drop(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  waitForConnections(count: number, timeoutMs = 10_000): Promise<void> {
    return this.until(() => this.connections >= count && this.sockets.size > 0, "connection", timeoutMs, `${count} Stream connections`);
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
  }

  private frame(type: string, topic: string, data: string): string {
    this.pushed += 1;
    const messageId = `push-${this.pushed}-${randomUUID().slice(0, 8)}`;
    const frame = { specVersion: "1.0", type, headers: { appId: this.clientId, connectionId: "conn-1", contentType: "application/json", messageId, time: String(Date.now()), topic }, data };
    for (const ws of this.sockets) ws.send(JSON.stringify(frame));
    return messageId;
  }

  private waitForReply(messageId: string, timeoutMs: number): Promise<Ack> {
    const find = () => this.replies.find((r) => r.headers.messageId === messageId);
    return this.until(() => find() !== undefined, "reply", timeoutMs, `an answer to ${messageId}`).then(() => find()!);
  }

  private until(done: () => boolean, event: string, timeoutMs: number, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.events.off(event, check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.events.off(event, check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.events.on(event, check);
    });
  }
}
