/**
 * WebSocket endpoints on the HTTP server: routes upgrade requests by path, checks the token, and keeps
 * connections honest with a ping heartbeat (a peer that vanished without a close frame is dropped).
 */
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Logger } from "../log.js";
import { tokenMatches, tokenProtocol, upgradeToken } from "./auth.js";

export type UpgradeHandler = (ws: WebSocket, req: IncomingMessage) => void;

export interface UpgradeOptions {
  /** Require the token when one is configured. Default true. */
  auth?: boolean;
  /** Largest frame accepted; a larger one closes the socket with 1009. Default 1 MiB. */
  maxPayload?: number;
}

interface Endpoint {
  wss: WebSocketServer;
  handle: UpgradeHandler;
  auth: boolean;
}

const HEARTBEAT_MS = 30_000;
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

export class WebSocketEndpoints {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly alive = new WeakSet<WebSocket>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly token: string | null,
    private readonly log: Logger,
  ) {}

  add(path: string, handle: UpgradeHandler, opts: UpgradeOptions = {}): void {
    if (this.endpoints.has(path)) throw new Error(`WebSocket path ${path} is already registered`);
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: opts.maxPayload ?? DEFAULT_MAX_PAYLOAD,
      // Echo the token subprotocol: a browser that offered one fails the handshake without it.
      handleProtocols: (protocols) => tokenProtocol(protocols) ?? false,
    });
    this.endpoints.set(path, { wss, handle, auth: opts.auth ?? true });
  }

  /** Handler of the node server's "upgrade" event. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", (err) => this.log.debug({ err }, "websocket upgrade socket error"));
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const endpoint = this.endpoints.get(path);
    if (!endpoint) return refuse(socket, 404, "not_found", `No WebSocket endpoint at ${path}`);
    if (endpoint.auth && this.token !== null && !tokenMatches(upgradeToken(req), this.token)) {
      this.log.info({ path }, "websocket upgrade refused: missing or wrong token");
      return refuse(socket, 401, "unauthorized", "A valid token is required");
    }
    endpoint.wss.handleUpgrade(req, socket, head, (ws) => {
      this.alive.add(ws);
      ws.on("pong", () => this.alive.add(ws));
      try {
        endpoint.handle(ws, req);
      } catch (err) {
        this.log.error({ err, path }, "websocket handler failed");
        ws.close(1011, "internal error");
      }
    });
  }

  startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      for (const ws of this.clients()) {
        if (!this.alive.has(ws)) {
          ws.terminate();
          continue;
        }
        this.alive.delete(ws);
        ws.ping();
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Asks every client to go away (1001); `terminate` afterwards drops the ones that did not. */
  closeAll(): void {
    clearInterval(this.heartbeat);
    for (const ws of this.clients()) ws.close(1001, "server shutting down");
  }

  terminateAll(): void {
    for (const ws of this.clients()) ws.terminate();
  }

  private *clients(): Generator<WebSocket> {
    for (const { wss } of this.endpoints.values()) yield* wss.clients;
  }
}

function refuse(socket: Duplex, status: 401 | 404, code: string, message: string): void {
  const body = JSON.stringify({ error: code, message });
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(status === 401 ? ["WWW-Authenticate: Bearer"] : []),
  ];
  socket.end(`${headers.join("\r\n")}\r\n\r\n${body}`);
}
