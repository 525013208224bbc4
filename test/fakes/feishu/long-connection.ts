/**
 * The fake's side of Feishu's long connection: a WebSocket speaking pbbp2 frames. The client pings (control
 * frames, type=ping) and gets pongs carrying the client config; events go out as data frames (type=event,
 * message_id, sum, seq, trace_id) and come back as the same frame with the client's `{"code":200}` payload.
 * An event is pushed only once the socket has pinged: the SDK reads frames only after its open handler ran, so
 * a frame sent the instant the socket opens is lost.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { CONTROL, DATA, decodeFrame, encodeFrame, type Frame } from "./frames.js";
import { whenEmitted } from "../../helpers/wait.js";

interface Live {
  ws: WebSocket;
  /** Has pinged: frames sent now are read. */
  ready: boolean;
}

export const SERVICE_ID = 33;
const PONG_CONFIG = { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 0.05, ReconnectNonce: 0 };

export class FakeLongConnection {
  /** Sockets accepted so far. */
  connections = 0;
  readonly pings: number[] = [];
  /** Acknowledgment payloads by frame message_id. */
  readonly acks = new Map<string, unknown>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly live = new Set<Live>();
  private readonly changes = new EventEmitter();

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws));
  }

  /** Pushes one event and resolves with the client's acknowledgment payload. */
  async push(envelope: unknown, timeoutMs = 5_000): Promise<unknown> {
    const id = randomUUID();
    const payload = new TextEncoder().encode(JSON.stringify(envelope));
    await this.sendFrame({ service: SERVICE_ID, method: DATA, headers: eventHeaders(id), payload }, timeoutMs);
    await whenEmitted(() => this.acks.has(id), this.changes, "change", timeoutMs, () => `the acknowledgment of event frame ${id}`);
    return this.acks.get(id);
  }

  /** Sends a frame on a socket that has pinged. */
  async sendFrame(frame: Frame, timeoutMs = 5_000): Promise<void> {
    await this.sendBytes(encodeFrame(frame), timeoutMs);
  }

  /** Sends raw bytes (not necessarily a frame) on a socket that has pinged. */
  async sendBytes(bytes: Uint8Array, timeoutMs = 5_000): Promise<void> {
    await whenEmitted(() => this.readySocket() !== undefined, this.changes, "change", timeoutMs, () => "a connected socket that has pinged");
    this.readySocket()!.ws.send(bytes);
  }

  /** Cuts every socket without a close handshake, as a network failure would. */
  drop(): void {
    for (const live of this.live) live.ws.terminate();
  }

  waitForConnections(count: number, timeoutMs = 5_000): Promise<void> {
    const done = () => this.connections >= count && this.readySocket() !== undefined;
    return whenEmitted(done, this.changes, "change", timeoutMs, () => `${count} connections`);
  }

  close(): void {
    this.drop();
    this.wss.close();
  }

  private readySocket(): Live | undefined {
    return [...this.live].find((l) => l.ready && l.ws.readyState === l.ws.OPEN);
  }

  private serve(ws: WebSocket): void {
    const live: Live = { ws, ready: false };
    this.live.add(live);
    this.connections += 1;
    ws.on("message", (data: Buffer) => this.received(live, data));
    ws.on("close", () => {
      this.live.delete(live);
      this.changes.emit("change");
    });
    this.changes.emit("change");
  }

  private received(live: Live, data: Buffer): void {
    const frame = decodeFrame(data);
    if (frame.method === CONTROL && frame.headers.type === "ping") {
      this.pings.push(frame.service);
      const payload = Buffer.from(JSON.stringify(PONG_CONFIG));
      live.ws.send(encodeFrame({ service: frame.service, method: CONTROL, headers: { type: "pong" }, payload }));
      live.ready = true;
    } else if (frame.method === DATA && frame.headers.message_id !== undefined) {
      this.acks.set(frame.headers.message_id, JSON.parse(Buffer.from(frame.payload ?? []).toString("utf8")) as unknown);
    }
    this.changes.emit("change");
  }
}

function eventHeaders(id: string): Record<string, string> {
  return { type: "event", message_id: id, sum: "1", seq: "0", trace_id: randomUUID() };
}
