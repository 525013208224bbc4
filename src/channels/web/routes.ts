/**
 * Where WebChat meets the HTTP server: the page, the message API, file downloads and the /ws socket.
 * Routes parse and answer HTTP; what a message does is the channel's business (channel.ts).
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { bodyLimit } from "hono/body-limit";
import { jsonError } from "../../infra/http/errors.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { WebFiles } from "./files.js";
import { loadPage, loadPageScript } from "./page.js";
import { apiMessageSchema, describeIssues, parseJson, type ApiMessage, type ApiReply, type ApiAnswer } from "./schema.js";
import { serveSocket, type SocketDeps } from "./socket.js";

export type AskResult =
  | ({ kind: "answered" } & ApiAnswer)
  | { kind: "timeout"; replies: ApiReply[] }
  | { kind: "in_flight" }
  | { kind: "unavailable" };

export interface WebRouteDeps {
  botName: string;
  maxTextLength: number;
  files: WebFiles;
  /** Hands an API message to the router and collects the replies to it. */
  ask(message: ApiMessage): Promise<AskResult>;
  socket: SocketDeps;
}

/** JSON may escape every character as \uXXXX; anything beyond that and some slack is not a chat message. */
const bodyLimitFor = (maxTextLength: number): number => maxTextLength * 6 + 64 * 1024;

export async function registerWebRoutes(http: HttpServer, deps: WebRouteDeps): Promise<void> {
  const page = await loadPage();
  const { app, auth } = http;
  const maxBytes = bodyLimitFor(deps.maxTextLength);

  app.get("/", (c) => c.html(page.html, 200, page.headers));
  const script = await loadPageScript();
  app.get("/webchat/webchat.js", (c) =>
    script === null
      ? jsonError(c, 404, "not_built", "The chat page's script is not built; run npm run build")
      : c.body(script, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" }),
  );

  app.get("/api/v1/info", auth, (c) => c.json({ botName: deps.botName, maxTextLength: deps.maxTextLength }));

  const tooLarge = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => jsonError(c, 413, "too_large", `The request body is larger than ${maxBytes} bytes`),
  });
  app.post("/api/v1/messages", auth, tooLarge, async (c) => {
    const json = parseJson(await c.req.text());
    if (!json.ok) return jsonError(c, 400, "bad_json", json.message);
    const parsed = apiMessageSchema.safeParse(json.value);
    if (!parsed.success) {
      return jsonError(c, 400, "bad_request", "The message is not valid", { problems: describeIssues(parsed.error) });
    }
    const { text } = parsed.data;
    if (text.length > deps.maxTextLength) {
      const message = `The text has ${text.length} characters; at most ${deps.maxTextLength} are accepted`;
      return jsonError(c, 413, "text_too_long", message);
    }
    const result = await deps.ask(parsed.data);
    switch (result.kind) {
      case "answered":
        return c.json({ replies: result.replies, outcome: result.outcome });
      case "timeout":
        return jsonError(c, 504, "timeout", "The message is still being handled; later replies appear in the chat", {
          replies: result.replies,
        });
      case "in_flight":
        return jsonError(c, 409, "in_flight", "A message with this messageId is already being handled");
      case "unavailable":
        return jsonError(c, 503, "unavailable", "WebChat is not running");
    }
  });

  app.get("/api/v1/files/:id/:name", auth, async (c) => {
    const file = await deps.files.find(c.req.param("id"), c.req.param("name"));
    if (!file) return jsonError(c, 404, "not_found", "No such file");
    const body = Readable.toWeb(createReadStream(file.path)) as ReadableStream<Uint8Array>;
    return c.body(body, 200, {
      "Content-Type": file.mime,
      "Content-Length": String(file.size),
      "Content-Disposition": attachmentDisposition(file.name),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    });
  });

  http.onUpgrade("/ws", (ws) => serveSocket(ws, deps.socket), { maxPayload: maxBytes });
}

/** RFC 6266: an ASCII fallback name plus the exact UTF-8 name. */
function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
