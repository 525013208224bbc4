/**
 * The fake Socket Mode endpoint: a WebSocket at the URL apps.connections.open handed out (its ticket used once),
 * `hello` on connect, envelopes `{envelope_id, type, payload, accepts_response_payload, retry_attempt}`, and acks
 * `{envelope_id}` from the client. An envelope not acknowledged within 3 s is sent again with retry_attempt + 1
 * (at most 3 times), as Slack does. The server pings the client so its ping monitor stays content.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

const ACK_DEADLINE_MS = 3_000;
const MAX_RETRIES = 3;

export interface SentEnvelope {
  id: string;
  type: string;
  payload: unknown;
  sentAt: number;
  attempts: number;
  /** ms from the first send to the ack, once acked. */
  ackedAfterMs?: number;
}

export class FakeSocketMode {
  readonly envelopes: SentEnvelope[] = [];
  connections = 0;
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly open = new Set<WebSocket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly pinger: NodeJS.Timeout;
  /** While false, acks are ignored as if lost (Slack then redelivers). */
  acceptAcks = true;

  constructor(
    private readonly redeem: (ticket: string) => boolean,
    pingIntervalMs: number,
  ) {
    this.pinger = setInterval(() => this.open.forEach((ws) => ws.ping()), pingIntervalMs);
  }

  isConnected(): boolean {
    return this.open.size > 0;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ticket = new URL(req.url ?? "/", "http://fake").searchParams.get("ticket") ?? "";
    if (!this.redeem(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    this.server.handleUpgrade(req, socket, head, (ws) => {
      this.connections += 1;
      this.open.add(ws);
      ws.on("close", () => this.open.delete(ws));
      ws.on("message", (data) => this.onAck(String(data)));
      ws.send(JSON.stringify({ type: "hello", num_connections: this.open.size, debug_info: { host: "fake-slack", approximate_connection_time: 18060 }, connection_info: { app_id: "A0FAKEAPP1" } }));
    });
  }

  /** Sends an envelope to one open connection; answers its id. */
  push(type: "events_api" | "interactive" | "slash_commands", payload: unknown): string {
    const envelope: SentEnvelope = { id: randomUUID(), type, payload, sentAt: Date.now(), attempts: 0 };
    this.envelopes.push(envelope);
    this.deliver(envelope);
    return envelope.id;
  }

  /** Slack asks the client to reconnect (it refreshes connections every few hours). */
  requestDisconnect(): void {
    for (const ws of this.open) ws.send(JSON.stringify({ type: "disconnect", reason: "refresh_requested", debug_info: { host: "fake-slack" } }));
  }

  /** Drops every connection without a close frame. */
  kill(): void {
    for (const ws of this.open) ws.terminate();
  }

  close(): void {
    clearInterval(this.pinger);
    for (const timer of this.timers) clearTimeout(timer);
    for (const ws of this.open) ws.terminate();
    this.server.close();
  }

  private deliver(envelope: SentEnvelope): void {
    const ws = [...this.open][0];
    if (ws) {
      ws.send(
        JSON.stringify({
          envelope_id: envelope.id,
          type: envelope.type,
          payload: envelope.payload,
          accepts_response_payload: envelope.type !== "events_api",
          ...(envelope.type === "events_api" ? { retry_attempt: envelope.attempts, retry_reason: envelope.attempts > 0 ? "timeout" : "" } : {}),
        }),
      );
    }
    envelope.attempts += 1;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (envelope.ackedAfterMs === undefined && envelope.attempts <= MAX_RETRIES) this.deliver(envelope);
    }, ACK_DEADLINE_MS);
    this.timers.add(timer);
  }

  private onAck(text: string): void {
    if (!this.acceptAcks) return;
    let id: unknown;
    try {
      id = (JSON.parse(text) as { envelope_id?: unknown }).envelope_id;
    } catch {
      return;
    }
    const envelope = this.envelopes.find((e) => e.id === id);
    if (envelope && envelope.ackedAfterMs === undefined) envelope.ackedAfterMs = Date.now() - envelope.sentAt;
  }
}
