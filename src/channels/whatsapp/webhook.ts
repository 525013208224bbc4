/**
 * The webhook Meta calls: GET answers the subscription check (`hub.mode=subscribe`, `hub.verify_token`,
 * `hub.challenge`), POST brings notifications. A POST is checked before anything in it is read: its
 * X-Hub-Signature-256 must be the HMAC-SHA256 of the raw body bytes with the app secret (Meta signs its own JSON,
 * escapes included, so only the bytes as received verify). A missing signature is answered 401, a wrong one 403,
 * and the body is dropped. A signed notification is handed to `receive`, which stores its messages, before the
 * 200 goes back: Meta delivers again until it gets one.
 */
import { createHmac } from "node:crypto";
import { bodyLimit } from "hono/body-limit";
import { tokenMatches } from "../../infra/http/auth.js";
import { jsonError } from "../../infra/http/errors.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import { WEBHOOK_PATH } from "./config.js";
import { notificationSchema } from "./normalize.js";
import type { z } from "zod";

export const SIGNATURE_HEADER = "X-Hub-Signature-256";

/** Notifications are a few KB; Meta batches at most a thousand updates, far below this. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface WebhookOptions {
  http: HttpServer;
  appSecret: string;
  verifyToken: string;
  log: Logger;
  /** Undefined while the channel is stopped: 503, and Meta delivers again later. */
  receiver(): ((body: z.output<typeof notificationSchema>) => Promise<void>) | undefined;
}

export function signatureOf(raw: Uint8Array, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}`;
}

export function registerWebhook(opts: WebhookOptions): void {
  const { http, log } = opts;
  http.app.get(WEBHOOK_PATH, (c) => {
    const mode = c.req.query("hub.mode");
    const challenge = c.req.query("hub.challenge");
    if (mode !== "subscribe" || challenge === undefined || !tokenMatches(c.req.query("hub.verify_token"), opts.verifyToken)) {
      log.warn({ mode }, "refused a WhatsApp webhook verification: wrong mode or verify token");
      return jsonError(c, 403, "forbidden", "hub.mode must be subscribe and hub.verify_token must match WHATSAPP_VERIFY_TOKEN");
    }
    log.info("answered WhatsApp's webhook verification");
    return c.text(challenge);
  });
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => jsonError(c, 413, "too_large", `A WhatsApp notification is at most ${MAX_BODY_BYTES} bytes`) });
  http.app.post(WEBHOOK_PATH, limit, async (c) => {
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const signature = c.req.header(SIGNATURE_HEADER);
    if (signature === undefined) {
      log.warn("WhatsApp webhook request without X-Hub-Signature-256; dropped");
      return jsonError(c, 401, "unauthorized", `The ${SIGNATURE_HEADER} header is missing`);
    }
    if (!tokenMatches(signature, signatureOf(raw, opts.appSecret))) {
      log.warn("WhatsApp webhook request with a wrong X-Hub-Signature-256; dropped");
      return jsonError(c, 403, "forbidden", `The ${SIGNATURE_HEADER} header does not match the body`);
    }
    const receive = opts.receiver();
    if (!receive) return jsonError(c, 503, "unavailable", "The WhatsApp channel is not running");
    const parsed = notificationSchema.safeParse(parseJson(raw));
    if (!parsed.success) {
      log.warn({ issue: parsed.error.issues[0]?.message }, "a signed WhatsApp webhook body is not a WhatsApp notification; refused");
      return jsonError(c, 400, "bad_request", "The body is not a whatsapp_business_account notification");
    }
    try {
      await receive(parsed.data);
    } catch (err) {
      // Nothing was acknowledged: Meta delivers the notification again.
      log.error({ err }, "could not record a WhatsApp notification; answering 500 so that it is delivered again");
      return jsonError(c, 500, "internal", "The notification could not be stored");
    }
    return c.body(null, 200);
  });
}

function parseJson(raw: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(raw).toString("utf8")) as unknown;
  } catch {
    return null;
  }
}
