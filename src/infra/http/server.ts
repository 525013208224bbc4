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
import { metricsRegistry } from "../metrics.js";
import { bearerToken, tokenMatches } from "./auth.js";
import { consoleError, newErrorId } from "./errors.js";
import { WebSocketEndpoints, type UpgradeHandler, type UpgradeOptions } from "./upgrades.js";

export interface ComponentStatus {
  ok: boolean;
  detail?: string;
  /** The states of the component's parts by name (the LLM: each model entry's), one line each. */
  parts?: Record<string, string>;
}

export interface ReadinessReport {
  ready: boolean;
  components: Record<string, ComponentStatus>;
}

/** One part's answer to /readyz; `gates: false` reports it without making the gateway unready. */
export interface ReadinessCheck {
  check: () => ComponentStatus | Promise<ComponentStatus>;
  gates: boolean;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string | null;
  log: Logger;
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
  private readonly readinessChecks = new Map<string, ReadinessCheck>();

  constructor(private readonly opts: HttpServerOptions) {
    this.auth = bearerAuth(opts.token);
    this.sockets = new WebSocketEndpoints(opts.token, opts.log);
    this.app.use(requestLog(opts.log));
    this.app.get("/healthz", (c) => c.json({ status: "ok" }));
    this.app.get("/readyz", (c) => this.readyz(c));
    this.app.get("/metrics", this.auth, async (c) =>
      c.body(await metricsRegistry.metrics(), 200, { "Content-Type": metricsRegistry.contentType, "Cache-Control": "no-store" }),
    );
    this.app.notFound((c) => consoleError(c, 404, { code: "not_found", method: c.req.method, path: c.req.path }, `No route for ${c.req.method} ${c.req.path}`));
    this.app.onError((err, c) => this.failed(err, c));
  }

  /** Adds a component to /readyz; each part of the gateway registers its own when it is built. */
  addReadinessCheck(name: string, check: ReadinessCheck["check"], opts: { gates?: boolean } = {}): void {
    this.readinessChecks.set(name, { check, gates: opts.gates ?? true });
  }

  /** Every registered check, run together; a check that throws counts as not ok. */
  async readiness(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.readinessChecks].map(async ([name, { check, gates }]) => {
        try {
          return { name, gates, status: await check() };
        } catch (err) {
          this.opts.log.warn({ err, component: name }, "readiness check failed");
          return { name, gates, status: { ok: false, detail: "the readiness check failed" } };
        }
      }),
    );
    const components = Object.fromEntries(entries.map((e) => [e.name, e.status]));
    return { ready: entries.every((e) => e.status.ok || !e.gates), components };
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
    const report = await this.readiness();
    c.header("Cache-Control", "no-store");
    return c.json({ ready: report.ready, components: report.components }, report.ready ? 200 : 503);
  }

  private failed(err: Error, c: Context): Response {
    if (err instanceof HTTPException) return err.getResponse();
    const errorId = newErrorId();
    this.opts.log.error({ err, errorId, method: c.req.method, path: c.req.path }, "request failed");
    return consoleError(c, 500, { code: "internal_error", errorId }, `Internal error (error id ${errorId})`);
  }
}

function bearerAuth(token: string | null): MiddlewareHandler {
  return async (c, next) => {
    if (token !== null && !tokenMatches(bearerToken(c.req.header("authorization")), token)) {
      c.header("WWW-Authenticate", "Bearer");
      return consoleError(c, 401, { code: "unauthorized" }, "A valid token is required (Authorization: Bearer <token>)");
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
