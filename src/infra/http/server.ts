/**
 * The gateway's one HTTP server: health and readiness, the routes channels add (WebChat, webhooks), and
 * WebSocket upgrades. Hono on @hono/node-server for HTTP, `ws` for WebSockets.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../log.js";
import { bearerToken, tokenMatches } from "./auth.js";
import { jsonError, newErrorId } from "./errors.js";
import { WebSocketEndpoints, type UpgradeHandler, type UpgradeOptions } from "./upgrades.js";

export interface ReadinessReport {
  ready: boolean;
  components: Record<string, { ok: boolean; detail?: string }>;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string | null;
  log: Logger;
  readiness: () => Promise<ReadinessReport>;
}

/** How long stop() lets open requests and sockets finish before cutting them. */
const STOP_GRACE_MS = 5_000;
const IDLE_SWEEP_MS = 50;

export class HttpServer {
  readonly app = new Hono();
  /** Bearer-token middleware: enforced when a token is configured (401 JSON otherwise); constant-time compare. */
  readonly auth: MiddlewareHandler;
  private readonly sockets: WebSocketEndpoints;
  private server: Server | undefined;

  constructor(private readonly opts: HttpServerOptions) {
    this.auth = bearerAuth(opts.token);
    this.sockets = new WebSocketEndpoints(opts.token, opts.log);
    this.app.use(requestLog(opts.log));
    this.app.get("/healthz", (c) => c.json({ status: "ok" }));
    this.app.get("/readyz", (c) => this.readyz(c));
    this.app.notFound((c) => jsonError(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}`));
    this.app.onError((err, c) => this.failed(err, c));
  }

  onUpgrade(path: string, handle: UpgradeHandler, opts?: UpgradeOptions): void {
    this.sockets.add(path, handle, opts);
  }

  async start(): Promise<{ port: number; url: string }> {
    if (this.server) throw new Error("The HTTP server is already started");
    // Without createServer options the adaptor builds a plain node:http server.
    const server = createAdaptorServer({ fetch: this.app.fetch }) as Server;
    server.on("upgrade", (req, socket, head) => this.sockets.upgrade(req, socket, head));
    const { host, port } = this.opts;
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) => reject(new Error(`Cannot listen on ${host}:${port}: ${err.message}`, { cause: err })));
      server.listen(port, host, resolve);
    });
    this.server = server;
    this.sockets.startHeartbeat();
    const actual = (server.address() as AddressInfo).port;
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${actual}`;
    this.opts.log.info({ url }, "HTTP server listening");
    return { port: actual, url };
  }

  /** Stops accepting, asks WebSockets to go away (1001), and closes the server once open requests finish. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    this.sockets.closeAll();
    // A keep-alive connection whose response ends after close() stays open until the client drops it,
    // so idle connections are swept again until the server is closed.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => {
      this.sockets.terminateAll();
      server.closeAllConnections();
    }, STOP_GRACE_MS);
    await closed;
    clearInterval(sweep);
    clearTimeout(cut);
  }

  private async readyz(c: Context): Promise<Response> {
    let report: ReadinessReport;
    try {
      report = await this.opts.readiness();
    } catch (err) {
      this.opts.log.warn({ err }, "readiness check failed");
      report = { ready: false, components: { readiness: { ok: false, detail: "the readiness check failed" } } };
    }
    c.header("Cache-Control", "no-store");
    return c.json({ ready: report.ready, components: report.components }, report.ready ? 200 : 503);
  }

  private failed(err: Error, c: Context): Response {
    if (err instanceof HTTPException) return err.getResponse();
    const errorId = newErrorId();
    this.opts.log.error({ err, errorId, method: c.req.method, path: c.req.path }, "request failed");
    return jsonError(c, 500, "internal_error", `Internal error (error id ${errorId})`, { errorId });
  }
}

function bearerAuth(token: string | null): MiddlewareHandler {
  return async (c, next) => {
    if (token !== null && !tokenMatches(bearerToken(c.req.header("authorization")), token)) {
      c.header("WWW-Authenticate", "Bearer");
      return jsonError(c, 401, "unauthorized", "A valid token is required (Authorization: Bearer <token>)");
    }
    await next();
  };
}

/** One debug line per request; the path only, never the query string, headers or body. */
function requestLog(log: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ms = Math.round(performance.now() - started);
    log.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms }, "http request");
  };
}
