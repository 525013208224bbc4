/**
 * The filtering proxy in front of Chromium: every request the browser makes (navigations, each redirect hop,
 * subresources, fetch/XHR, WebSocket handshakes, all tunnelled with CONNECT or sent as plain proxy requests) is
 * checked by the AddressGuard and connected to the checked address, or answered 403 with the reason. It listens on
 * 127.0.0.1 on a port of its own; Chromium is told to use it even for loopback (`--proxy-bypass-list=<-loopback>`).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AddressGuard } from "../infra/net/address-guard.js";

export interface Refusal {
  target: string;
  reason: string;
}

const MAX_REFUSALS = 50;

export class FilteringProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();
  /** The latest refusals, newest last, for the tools to report what the page could not load. */
  readonly refusals: Refusal[] = [];

  constructor(private readonly guard: AddressGuard) {
    this.server = createServer((req, res) => void this.forward(req, res));
    this.server.on("connect", (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(req, socket, head));
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The refusals recorded since `mark` (a length of `refusals` taken earlier). */
  refusalsSince(mark: number): Refusal[] {
    return this.refusals.slice(Math.min(mark, this.refusals.length));
  }

  private refuse(target: string, err: unknown): string {
    const reason = err instanceof Error ? err.message : String(err);
    this.refusals.push({ target, reason });
    if (this.refusals.length > MAX_REFUSALS) this.refusals.splice(0, this.refusals.length - MAX_REFUSALS);
    return reason;
  }

  /**
   * A CONNECT hands the browser's socket over without the HTTP server's error listener: it is listened to at once,
   * before the lookup, so a browser hanging up meanwhile (it closes, a page navigates away) cannot throw an
   * unhandled ECONNRESET and end the gateway. The same holds for an upgrade.
   */
  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on("error", () => client.destroy());
    const target = req.url ?? "";
    const { host, port } = splitHostPort(target, 443);
    let upstream: Socket;
    try {
      const { address } = await this.guard.resolve(host, port);
      if (client.destroyed) return;
      upstream = connect(port, address);
    } catch (err) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${this.refuse(target, err)}`);
      return;
    }
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.once("close", () => upstream.destroy());
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new Error(`only http is proxied in the clear, not ${url.protocol}`);
    } catch (err) {
      res.writeHead(400, { "content-type": "text/plain" }).end(err instanceof Error ? err.message : "bad request");
      return;
    }
    const port = Number(url.port) || 80;
    let address: string;
    try {
      address = (await this.guard.resolve(url.hostname, port)).address;
    } catch (err) {
      res.writeHead(403, { "content-type": "text/plain" }).end(this.refuse(url.href, err));
      return;
    }
    const upstream = httpRequest({ host: address, port, method: req.method, path: `${url.pathname}${url.search}`, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", (err) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`upstream failed: ${err.message}`);
    });
    req.pipe(upstream);
  }

  /** A plain-HTTP WebSocket handshake sent to the proxy: checked, then relayed byte for byte. */
  private async upgrade(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on("error", () => client.destroy());
    let url: URL;
    let address: string;
    try {
      url = new URL(req.url ?? "");
      address = (await this.guard.resolve(url.hostname, Number(url.port) || 80)).address;
      if (client.destroyed) return;
    } catch (err) {
      client.end(`HTTP/1.1 403 Forbidden\r\n\r\n${this.refuse(req.url ?? "", err)}`);
      return;
    }
    const upstream = connect(Number(url.port) || 80, address, () => {
      const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : (v ?? "")}`);
      upstream.write(`${req.method} ${url.pathname}${url.search} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.once("close", () => upstream.destroy());
  }
}

/**
 * The host and port a refusal's target names ("host:port" for a tunnel, a URL for a plain request or a page's
 * request), lowercased, so that refusals and the requests pages made can be matched.
 */
export function targetHost(target: string): string {
  if (target.includes("://")) {
    try {
      const url = new URL(target);
      return `${url.hostname}:${url.port || (url.protocol === "https:" || url.protocol === "wss:" ? 443 : 80)}`;
    } catch {
      return target.toLowerCase();
    }
  }
  const { host, port } = splitHostPort(target, 443);
  return `${host.toLowerCase()}:${port}`;
}

function splitHostPort(target: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(target);
  if (!match) return { host: target, port: defaultPort };
  return { host: match[1]!, port: match[2] ? Number(match[2]) : defaultPort };
}
