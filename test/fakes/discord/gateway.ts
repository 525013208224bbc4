/**
 * The fake Discord gateway: plain JSON text frames over a real WebSocket. HELLO, IDENTIFY -> READY (with
 * resume_gateway_url) and one GUILD_CREATE per guild, heartbeat ACKs, RESUME -> replay + RESUMED or
 * INVALID_SESSION, dispatches with increasing sequence numbers kept per session for replay. Faults: close the
 * next IDENTIFY with a code (4014), close the live connection, replay already-delivered events on resume, and a
 * zombie connection that stays open but stops acking, sending and reading.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { guildCreatePayload, type FakeGuild, type FakeUser } from "./world.js";

const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, Resume: 6, InvalidSession: 9, Hello: 10, HeartbeatAck: 11 } as const;

export interface GatewayState {
  token: string;
  bot: FakeUser;
  guilds: FakeGuild[];
  applicationFlags: number;
  heartbeatIntervalMs: number;
  url: () => string;
}

export interface GatewayStats {
  connections: number;
  identifies: number;
  resumes: number;
  heartbeats: number;
  /** The intents bitfield of each IDENTIFY. */
  intents: number[];
}

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

interface Session {
  id: string;
  seq: number;
  events: Dispatch[];
  connection?: Connection;
}

interface Connection {
  ws: WebSocket;
  socket: Duplex;
  zombie: boolean;
}

export class FakeGateway {
  readonly stats: GatewayStats = { connections: 0, identifies: 0, resumes: 0, heartbeats: 0, intents: [] };
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  private current: Session | undefined;
  private identifyCloseCode: number | undefined;
  private resumeOverlap = 0;

  constructor(private readonly state: GatewayState) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, socket));
  }

  /** Sends a dispatch on the current session (kept for replay); returns its sequence number. */
  dispatch(t: string, d: unknown): number {
    const session = this.current;
    if (!session) throw new Error("fake-discord: no session to dispatch on (nobody has identified)");
    session.seq += 1;
    const event = { s: session.seq, t, d };
    session.events.push(event);
    const connection = session.connection;
    if (connection && !connection.zombie) send(connection.ws, { op: Op.Dispatch, ...event });
    return event.s;
  }

  /** The next IDENTIFY is answered by closing the socket with `code` (e.g. 4014 disallowed intents). */
  closeNextIdentify(code: number): void {
    this.identifyCloseCode = code;
  }

  /** On RESUME, also replay the last `count` events the client already received (a redelivery). */
  replayOnResume(count: number): void {
    this.resumeOverlap = count;
  }

  /** Closes the live connection from the server side. */
  closeConnection(code: number): void {
    this.current?.connection?.ws.close(code, "fake-discord: closed by the test");
  }

  /** The live connection stays open but goes silent: no ACKs, no dispatches, and it stops reading. */
  zombie(): void {
    const connection = this.current?.connection;
    if (!connection) throw new Error("fake-discord: no live connection to turn into a zombie");
    connection.zombie = true;
    connection.socket.pause();
  }

  close(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  private accept(ws: WebSocket, socket: Duplex): void {
    this.stats.connections += 1;
    const connection: Connection = { ws, socket, zombie: false };
    ws.on("message", (data) => {
      if (connection.zombie) return;
      let frame: { op?: number; d?: Record<string, unknown> };
      try {
        frame = JSON.parse(String(data)) as typeof frame;
      } catch {
        return;
      }
      this.onFrame(connection, frame.op, frame.d ?? {});
    });
    ws.on("close", () => {
      for (const session of this.sessions.values()) if (session.connection === connection) delete session.connection;
    });
    send(ws, { op: Op.Hello, d: { heartbeat_interval: this.state.heartbeatIntervalMs } });
  }

  private onFrame(connection: Connection, op: number | undefined, d: Record<string, unknown>): void {
    switch (op) {
      case Op.Heartbeat:
        this.stats.heartbeats += 1;
        send(connection.ws, { op: Op.HeartbeatAck });
        return;
      case Op.Identify:
        return this.identify(connection, d);
      case Op.Resume:
        return this.resume(connection, d);
      default:
        return;
    }
  }

  private identify(connection: Connection, d: Record<string, unknown>): void {
    this.stats.identifies += 1;
    this.stats.intents.push(Number(d.intents));
    if (d.token !== this.state.token) return connection.ws.close(4004, "Authentication failed.");
    if (this.identifyCloseCode !== undefined) {
      const code = this.identifyCloseCode;
      this.identifyCloseCode = undefined;
      return connection.ws.close(code, "Disallowed intent(s).");
    }
    const session: Session = { id: randomBytes(16).toString("hex"), seq: 0, events: [], connection };
    this.sessions.set(session.id, session);
    this.current = session;
    const { bot, guilds } = this.state;
    this.dispatch("READY", {
      v: 10,
      user: bot,
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.state.url(),
      shard: [0, 1],
      application: { id: bot.id, flags: this.state.applicationFlags },
      private_channels: [],
      relationships: [],
      presences: [],
    });
    for (const guild of guilds) this.dispatch("GUILD_CREATE", guildCreatePayload(guild));
  }

  private resume(connection: Connection, d: Record<string, unknown>): void {
    this.stats.resumes += 1;
    const session = this.sessions.get(String(d.session_id));
    if (!session || d.token !== this.state.token) return send(connection.ws, { op: Op.InvalidSession, d: false });
    session.connection = connection;
    this.current = session;
    const after = Number(d.seq) - this.resumeOverlap;
    this.resumeOverlap = 0;
    for (const event of session.events.filter((e) => e.s > after)) send(connection.ws, { op: Op.Dispatch, ...event });
    this.dispatch("RESUMED", {});
  }
}

function send(ws: WebSocket, frame: Record<string, unknown>): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ s: null, t: null, ...frame }));
}
