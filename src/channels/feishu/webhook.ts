/**
 * Event delivery by webhook: Feishu POSTs each event to a path on the gateway's HTTP server. A request is checked
 * (signature, decryption, verification token) and answered at once; the turn it starts runs afterwards, since
 * Feishu waits 3 s for the answer and pushes the event again without one.
 *
 * The signature covers the raw body exactly as sent: X-Lark-Signature = hex SHA-256 of timestamp + nonce +
 * encrypt key + body. With an encrypt key every event must be signed; the one-off url_verification request may
 * come unsigned, and it carries the verification token like every other request.
 */
import { createHash } from "node:crypto";
import * as lark from "@larksuiteoapi/node-sdk";
import { bodyLimit } from "hono/body-limit";
import { tokenMatches } from "../../infra/http/auth.js";
import { jsonError } from "../../infra/http/errors.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";

export interface WebhookKeys {
  verificationToken: string;
  encryptKey: string | null;
}

export interface SignatureHeaders {
  timestamp?: string | undefined;
  nonce?: string | undefined;
  signature?: string | undefined;
}

export type Push =
  | { kind: "challenge"; challenge: string }
  | { kind: "event"; payload: Record<string, unknown> }
  | { kind: "refused"; status: 400 | 401; reason: string };

/** Feishu's events are a few kilobytes; anything near this is not one. */
const MAX_BODY_BYTES = 1024 * 1024;

/** What one pushed request is, or why it is refused. */
export function readPush(raw: string, headers: SignatureHeaders, keys: WebhookKeys): Push {
  const body = parseObject(raw);
  if (!body) return refused(400, "the body is not a JSON object");
  const signed = headers.signature !== undefined;
  if (keys.encryptKey !== null && signed && !signatureMatches(raw, headers, keys.encryptKey)) {
    return refused(401, "the X-Lark-Signature header does not match the body");
  }
  let payload = body;
  if (typeof body.encrypt === "string") {
    if (keys.encryptKey === null) {
      return refused(400, "the body is encrypted but channels.feishu.webhook.encryptKey is not set");
    }
    const decrypted = parseObject(decrypt(body.encrypt, keys.encryptKey));
    if (!decrypted) return refused(400, "the body cannot be decrypted with the configured encrypt key");
    payload = decrypted;
  }
  if (!tokenMatches(tokenOf(payload), keys.verificationToken)) {
    return refused(401, "the verification token is wrong or missing");
  }
  if (payload.type === "url_verification") {
    if (typeof payload.challenge !== "string") return refused(400, "url_verification without a challenge");
    return { kind: "challenge", challenge: payload.challenge };
  }
  if (keys.encryptKey !== null && !signed) return refused(401, "the event is not signed although an encrypt key is set");
  return { kind: "event", payload };
}

export interface WebhookOptions {
  path: string;
  keys: WebhookKeys;
  log: Logger;
  /** While false, requests get 503, so Feishu pushes their events again later instead of losing them. */
  running(): boolean;
  /** Takes an event after its request has been answered. */
  accept(payload: unknown): Promise<void>;
  /** The answer to a callback whose response matters (a card action: toast, new card); undefined for events. */
  answer?(payload: unknown): Promise<object> | undefined;
}

export function registerWebhook(http: HttpServer, opts: WebhookOptions): void {
  const { log } = opts;
  const tooLarge = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => jsonError(c, 413, "too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes`),
  });
  http.app.post(opts.path, tooLarge, async (c) => {
    if (!opts.running()) return jsonError(c, 503, "unavailable", "The Feishu channel is not running");
    const push = readPush(await c.req.text(), {
      timestamp: c.req.header("x-lark-request-timestamp"),
      nonce: c.req.header("x-lark-request-nonce"),
      signature: c.req.header("x-lark-signature"),
    }, opts.keys);
    switch (push.kind) {
      case "refused":
        log.warn({ status: push.status, reason: push.reason }, "refused a Feishu webhook request");
        return jsonError(c, push.status, "refused", push.reason);
      case "challenge":
        log.info("answered Feishu's url_verification");
        return c.json({ challenge: push.challenge });
      case "event": {
        const answer = opts.answer?.(push.payload);
        if (answer) return c.json(await answer);
        // accept() only checks and queues the event, never waits for its turn: the answer goes out at once.
        void opts.accept(push.payload);
        return c.json({});
      }
    }
  });
}

function refused(status: 400 | 401, reason: string): Push {
  return { kind: "refused", status, reason };
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function signatureMatches(raw: string, headers: SignatureHeaders, encryptKey: string): boolean {
  const expected = createHash("sha256")
    .update(`${headers.timestamp ?? ""}${headers.nonce ?? ""}${encryptKey}`)
    .update(raw)
    .digest("hex");
  return tokenMatches(headers.signature, expected);
}

/** AES-256-CBC, key SHA-256(encrypt key), IV the first 16 bytes: the SDK's cipher. null when it does not decrypt. */
function decrypt(encrypted: string, encryptKey: string): string | null {
  try {
    return new lark.AESCipher(encryptKey).decrypt(encrypted);
  } catch {
    return null;
  }
}

/** Schema 2.0 events carry the token in their header; url_verification and 1.0 events at the top. */
function tokenOf(payload: Record<string, unknown>): string | undefined {
  const header = payload.header;
  const token = header !== null && typeof header === "object" ? (header as Record<string, unknown>).token : payload.token;
  return typeof token === "string" ? token : undefined;
}
