/**
 * A fake Slack for tests: one HTTP server on 127.0.0.1 (port 0) serving the Web API under /api/ (what
 * SLACK_API_URL points at), the Socket Mode WebSocket at the URL apps.connections.open hands out, file uploads
 * at the upload URLs files.getUploadURLExternal hands out, and private file downloads (bot token required).
 * The real @slack/web-api and @slack/socket-mode clients talk to it unmodified.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { boundaryOf, parseMultipart } from "../telegram/multipart.js";
import { FakeSlackApi } from "./api.js";
import { eventCallback } from "./events.js";
import { FakeSocketMode } from "./socket.js";
import { APP_TOKEN, BOT_TOKEN, DEFAULT_SCOPES, SIGNING_SECRET } from "./world.js";

export * from "./world.js";
export * from "./events.js";
export type { BotMessage, Fault, Upload } from "./api.js";

export interface FakeSlackOptions {
  scopes?: string[];
  /** How often the server pings each Socket Mode connection (Slack: about every 30 s at most). */
  pingIntervalMs?: number;
}

export interface FakeSlack {
  /** http://127.0.0.1:port */
  url: string;
  /** What SLACK_API_URL is set to: `${url}/api/`. */
  apiUrl: string;
  botToken: string;
  appToken: string;
  signingSecret: string;
  api: FakeSlackApi;
  socket: FakeSocketMode;
  /** A file a person shared: served at a private URL that needs the bot token. */
  serveFile(name: string, data: Buffer, mime: string): Record<string, unknown>;
  /** The event, as an Events API callback pushed through Socket Mode; answers the envelope id. */
  pushEvent(event: Record<string, unknown>, eventId?: string): string;
  /** Requests to private file URLs, and whether each carried the bot token (without it Slack answers its sign-in page). */
  downloads: Array<{ path: string; authorized: boolean }>;
  close(): Promise<void>;
}

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  let url = "";
  const api = new FakeSlackApi(() => url, opts.scopes ?? DEFAULT_SCOPES);
  const socket = new FakeSocketMode((ticket) => api.redeem(ticket), opts.pingIntervalMs ?? 5_000);
  const files = new Map<string, { data: Buffer; mime: string }>();
  const downloads: FakeSlack["downloads"] = [];

  const server = createServer((req, res) => {
    void route(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const body = await read(req);
    const method = /^\/api\/([a-zA-Z.]+)$/.exec(path)?.[1];
    if (method && req.method === "POST") {
      const answer = api.handle(method, paramsOf(body, req.headers["content-type"] ?? ""), req.headers.authorization);
      if (answer.status === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { "Content-Type": "application/json; charset=utf-8", ...answer.headers }).end(JSON.stringify(answer.body));
      return;
    }
    const upload = /^\/upload\/v1\/(F\w+)$/.exec(path)?.[1];
    if (upload && req.method === "POST") {
      const boundary = boundaryOf(req.headers["content-type"] ?? "");
      const data = boundary ? (parseMultipart(body, boundary).find((p) => p.filename !== undefined)?.data ?? Buffer.alloc(0)) : body;
      const status = api.receiveUpload(upload, data);
      res.writeHead(status, { "Content-Type": "text/plain" }).end(status === 200 ? `OK - ${data.length}` : "not found");
      return;
    }
    const file = files.get(path);
    if (file && req.method === "GET") {
      // Slack answers a request without the token with its sign-in page.
      const authorized = req.headers.authorization === `Bearer ${BOT_TOKEN}`;
      downloads.push({ path, authorized });
      if (!authorized) res.writeHead(200, { "Content-Type": "text/html" }).end("<html>sign in</html>");
      else res.writeHead(200, { "Content-Type": file.mime, "Content-Length": String(file.data.length) }).end(file.data);
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
  }

  server.on("upgrade", (req, duplex, head) => {
    if ((req.url ?? "").startsWith("/link/")) socket.upgrade(req, duplex, head);
    else duplex.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let fileCount = 0;
  return {
    url,
    apiUrl: `${url}/api/`,
    botToken: BOT_TOKEN,
    appToken: APP_TOKEN,
    signingSecret: SIGNING_SECRET,
    api,
    socket,
    downloads,
    serveFile(name, data, mime) {
      fileCount += 1;
      const id = `F0SHARED${fileCount}`;
      const path = `/files-pri/${id}/download/${name}`;
      files.set(path, { data, mime });
      return { id, name, mimetype: mime, filetype: name.split(".").pop(), size: data.length, url_private: `${url}/files-pri/${id}/${name}`, url_private_download: `${url}${path}` };
    },
    pushEvent(event, eventId) {
      if (typeof event.ts === "string" && typeof event.user === "string") api.userMessages.set(event.ts, event.user);
      return socket.push("events_api", eventCallback(event, eventId));
    },
    async close() {
      socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function read(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Slack takes form bodies (every method) and JSON bodies (write methods, token in the header). */
function paramsOf(body: Buffer, contentType: string): Record<string, unknown> {
  if (contentType.startsWith("application/json")) {
    try {
      return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(body.toString("utf8")));
}
