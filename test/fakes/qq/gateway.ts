/**
 * The QQ bot gateway as documented: op 10 Hello on connect; op 2 Identify with a valid `QQBot <token>` (4004
 * otherwise) and only public-domain intents (4014 for others) answered by READY; op 1 heartbeats answered by op
 * 11; op 6 Resume with a known session replays the dispatches after its `seq`, then RESUMED (op 9 for an unknown
 * session); op 7 asks the client to reconnect. Dispatches are op 0 with a growing `s`.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

/** Intents a public-domain bot may ask for: GUILDS, GUILD_MEMBERS, reactions, DIRECT_MESSAGE, GROUP_AND_C2C, interactions, audio, forums, PUBLIC_GUILD_MESSAGES. */
const PUBLIC_INTENTS = (1 << 0) | (1 << 1) | (1 << 10) | (1 << 12) | (1 << 25) | (1 << 26) | (1 << 27) | (1 << 29) | (1 << 30);

interface Dispatched {
  s: number;
  t: string;
  id: string;
  d: unknown;
}

export class FakeQqGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly events = new EventEmitter();
  private readonly history: Dispatched[] = [];
  private readonly sessionIds = new Set<string>();
  private seq = 0;
  readonly identifies: Array<{ intents: number }> = [];
  readonly resumes: Array<{ session_id: string; seq: number }> = [];
  heartbeats = 0;
  connections = 0;

  constructor(private readonly tokenValid: (token: string) => boolean) {
    this.events.setMaxListeners(100);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.sockets.add(ws);
      this.connections += 1;
      ws.on("close", () => this.sockets.delete(ws));
      ws.on("message", (data) => this.onPayload(ws, String(data)));
      ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 } }));
    });
  }

  /** Dispatches an event to the connected sessions; `id` defaults to a fresh event id. */
  dispatch(t: string, d: unknown, id = `${t}:${randomUUID()}`): void {
    this.seq += 1;
    const event = { s: this.seq, t, id, d };
    this.history.push(event);
    for (const ws of this.sockets) ws.send(JSON.stringify({ op: 0, ...event }));
  }

  /** op 7: the client must reconnect and resume. */
  askReconnect(): void {
    for (const ws of this.sockets) ws.send(JSON.stringify({ op: 7 }));
  }

  /** The platform forgets every session: a Resume then gets op 9. */
  forgetSessions(): void {
    this.sessionIds.clear();
  }

  drop(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  waitFor(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.events.off("change", check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.events.off("change", check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      this.events.on("change", check);
    });
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
  }

  private onPayload(ws: WebSocket, raw: string): void {
    const payload = JSON.parse(raw) as { op: number; d?: Record<string, unknown> | number | null };
    const d = (payload.d ?? {}) as Record<string, unknown>;
    switch (payload.op) {
      case 1:
        this.heartbeats += 1;
        ws.send(JSON.stringify({ op: 11 }));
        break;
      case 2: {
        if (!this.validToken(d.token)) return void ws.close(4004, "invalid token");
        const intents = Number(d.intents);
        if (!Number.isInteger(intents) || intents <= 0 || (intents & ~PUBLIC_INTENTS) !== 0) return void ws.close(4014, "disallowed intents");
        this.identifies.push({ intents });
        const sessionId = randomUUID();
        this.sessionIds.add(sessionId);
        this.seq += 1;
        ws.send(JSON.stringify({ op: 0, s: this.seq, t: "READY", d: { version: 1, session_id: sessionId, user: { id: "bot-1", username: "Switchboard", bot: true }, shard: [0, 1] } }));
        break;
      }
      case 6: {
        if (!this.validToken(d.token)) return void ws.close(4004, "invalid token");
        const sessionId = String(d.session_id);
        if (!this.sessionIds.has(sessionId)) return void ws.send(JSON.stringify({ op: 9, d: false }));
        const after = Number(d.seq);
        this.resumes.push({ session_id: sessionId, seq: after });
        for (const event of this.history.filter((e) => e.s > after)) ws.send(JSON.stringify({ op: 0, ...event }));
        this.seq += 1;
        ws.send(JSON.stringify({ op: 0, s: this.seq, t: "RESUMED", d: "" }));
        break;
      }
    }
    this.events.emit("change");
  }

  private validToken(token: unknown): boolean {
    return typeof token === "string" && token.startsWith("QQBot ") && this.tokenValid(token.slice("QQBot ".length));
  }
}
