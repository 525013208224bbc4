/**
 * Webhook mode: QQ POSTs each event to `webhookPath`, signed with ed25519 over timestamp + body (headers
 * X-Signature-Timestamp, X-Signature-Ed25519); the key pair's seed is the app secret repeated to 32 bytes. An
 * unsigned or wrongly signed request is refused with 401. The callback URL check (op 13) is answered with the
 * plain_token signed over event_ts + plain_token; an event (op 0) is recorded and then acknowledged with op 12.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Dispatch } from "./gateway.js";

const MAX_BODY_BYTES = 1024 * 1024;
/** PKCS#8 DER prefix of an ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

const payloadSchema = z.object({ op: z.number(), d: z.unknown().optional(), t: z.string().nullish(), id: z.string().nullish() });
const validationSchema = z.object({ plain_token: z.string(), event_ts: z.string() });

/** The key QQ signs with, from the app secret. */
export function signingKey(appSecret: string): KeyObject {
  let seed = appSecret;
  while (Buffer.byteLength(seed) < 32) seed += seed;
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(seed).subarray(0, 32)]), format: "der", type: "pkcs8" });
}

export interface WebhookOptions {
  path: string;
  appSecret: string;
  log: Logger;
  /** undefined while the channel is stopped (503: QQ pushes again later); resolves once the event is recorded. */
  receiver(): ((dispatch: Dispatch) => Promise<void>) | undefined;
}

export function registerWebhook(http: HttpServer, opts: WebhookOptions): void {
  const key = signingKey(opts.appSecret);
  const publicKey = createPublicKey(key);
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: "too_large" }, 413) });
  http.app.post(opts.path, limit, async (c) => {
    const raw = await c.req.text();
    const timestamp = c.req.header("x-signature-timestamp");
    const signature = c.req.header("x-signature-ed25519");
    if (!timestamp || !signature || !/^[0-9a-f]{128}$/i.test(signature) || !verify(null, Buffer.from(timestamp + raw), publicKey, Buffer.from(signature, "hex"))) {
      opts.log.warn("refused a QQ webhook request whose ed25519 signature does not verify");
      return c.json({ error: "unauthorized", message: "the X-Signature-Ed25519 signature does not verify" }, 401);
    }
    let payload: z.output<typeof payloadSchema>;
    try {
      payload = payloadSchema.parse(JSON.parse(raw));
    } catch {
      return c.json({ error: "bad_request", message: "the body is not a QQ payload" }, 400);
    }
    if (payload.op === 13) {
      const check = validationSchema.safeParse(payload.d);
      if (!check.success) return c.json({ error: "bad_request", message: "op 13 without plain_token and event_ts" }, 400);
      const signed = sign(null, Buffer.from(check.data.event_ts + check.data.plain_token), key).toString("hex");
      return c.json({ plain_token: check.data.plain_token, signature: signed });
    }
    if (payload.op !== 0) return c.json({ op: 12, d: 0 });
    const receive = opts.receiver();
    if (!receive) return c.json({ error: "unavailable", message: "the QQ channel is not running" }, 503);
    try {
      await receive({ type: payload.t ?? "", id: payload.id ?? undefined, data: payload.d });
    } catch (err) {
      opts.log.error({ err }, "could not record a QQ webhook event");
      return c.json({ error: "unavailable", message: "could not record the event" }, 500);
    }
    return c.json({ op: 12, d: 0 });
  });
}
