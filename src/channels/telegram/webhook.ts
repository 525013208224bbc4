/**
 * The webhook route on the gateway's HTTP server. Telegram proves itself with the secret token header; the update
 * is stored before the 200 goes back and handled afterwards, because Telegram re-sends an update until it gets a
 * 2xx and holds the bot's later updates meanwhile. A store failure answers 500, so Telegram tries again.
 */
import { bodyLimit } from "hono/body-limit";
import { tokenMatches } from "../../infra/http/auth.js";
import { jsonError } from "../../infra/http/errors.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Received } from "./intake.js";

export const SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token";

/** An update holds at most a few KB of text and entities; anything far larger is not from Telegram. */
const MAX_UPDATE_BYTES = 1024 * 1024;

export interface WebhookRouteOptions {
  http: HttpServer;
  path: string;
  secret: string;
  log: Logger;
  /** Undefined while the channel is stopped: the request gets 503 and Telegram re-sends it later. */
  receiver: () => ((body: unknown) => Promise<Received>) | undefined;
}

export function registerWebhookRoute(opts: WebhookRouteOptions): void {
  const { log } = opts;
  const limit = bodyLimit({
    maxSize: MAX_UPDATE_BYTES,
    onError: (c) => jsonError(c, 413, "too_large", `A Telegram update is at most ${MAX_UPDATE_BYTES} bytes`),
  });
  opts.http.app.post(opts.path, limit, async (c) => {
    if (!tokenMatches(c.req.header(SECRET_HEADER), opts.secret)) {
      log.warn("Telegram webhook request without the right secret token; refused");
      return jsonError(c, 401, "unauthorized", `The ${SECRET_HEADER} header is missing or wrong`);
    }
    const receive = opts.receiver();
    if (!receive) return jsonError(c, 503, "unavailable", "The Telegram channel is not running");
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      log.warn("Telegram webhook body is not JSON; refused");
      return jsonError(c, 400, "bad_request", "The body must be a JSON Telegram update");
    }
    const received = await receive(body);
    log.debug({ received }, "Telegram webhook update");
    // An empty 200: a JSON body here would be read by Telegram as a method to call.
    return c.body(null, 200);
  });
}
