/**
 * The Events API over HTTP (`mode: events`): Slack posts event callbacks as JSON, and button presses
 * (`payload=`) and slash commands as forms, all to /slack/events. Each request is checked before anything is read:
 * X-Slack-Signature is `v0=` HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret, and a timestamp
 * more than 5 minutes off is refused (a replayed request). The url_verification challenge is answered; an event
 * is recorded before the 200 goes back, since Slack sends it again (x-slack-retry-num) until it gets one in 3 s.
 */
import { createHmac } from "node:crypto";
import { bodyLimit } from "hono/body-limit";
import { tokenMatches } from "../../infra/http/auth.js";
import { jsonError } from "../../infra/http/errors.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { EnvelopeKind } from "./socket.js";

/** Slack's requests are a few KB; anything far larger is not from Slack. */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_SKEW_SECONDS = 5 * 60;

/** What a checked request carries, as Socket Mode would deliver it; answers once it may be acknowledged. */
export type WebhookReceiver = (kind: EnvelopeKind, body: unknown, retryNum: number) => Promise<{ accepted: boolean; after?: () => void }>;

export interface WebhookOptions {
  http: HttpServer;
  path: string;
  signingSecret: string;
  log: Logger;
  /** Undefined while the channel is stopped: 503, and Slack sends it again later. */
  receiver: () => WebhookReceiver | undefined;
  now?: () => number;
}

export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export function registerEventsRoute(opts: WebhookOptions): void {
  const { log } = opts;
  const now = opts.now ?? Date.now;
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => jsonError(c, 413, "too_large", `A Slack request is at most ${MAX_BODY_BYTES} bytes`) });
  opts.http.app.post(opts.path, limit, async (c) => {
    const raw = await c.req.text();
    const timestamp = c.req.header("X-Slack-Request-Timestamp") ?? "";
    const seconds = Number(timestamp);
    if (!/^\d+$/.test(timestamp) || Math.abs(now() / 1000 - seconds) > MAX_SKEW_SECONDS) {
      log.warn({ timestamp }, "Slack request with a missing or stale timestamp; refused");
      return jsonError(c, 401, "stale_request", "X-Slack-Request-Timestamp is missing or more than 5 minutes off");
    }
    if (!tokenMatches(c.req.header("X-Slack-Signature"), slackSignature(opts.signingSecret, timestamp, raw))) {
      log.warn("Slack request without a valid signature; refused");
      return jsonError(c, 401, "bad_signature", "X-Slack-Signature does not match the body (check SLACK_SIGNING_SECRET)");
    }
    const parsed = parseBody(raw, c.req.header("Content-Type") ?? "");
    if (!parsed) {
      log.warn("Slack request body is neither an event nor a form Slack sends; refused");
      return jsonError(c, 400, "bad_request", "The body must be an Events API JSON callback, an interaction payload or a slash command");
    }
    if (parsed.kind === "url_verification") return c.json({ challenge: parsed.challenge });
    const receive = opts.receiver();
    if (!receive) return jsonError(c, 503, "unavailable", "The Slack channel is not running");
    const retryNum = Number(c.req.header("X-Slack-Retry-Num") ?? 0) || 0;
    const { accepted, after } = await receive(parsed.kind, parsed.body, retryNum);
    if (!accepted) return jsonError(c, 500, "not_recorded", "The event could not be recorded; send it again");
    if (after) setImmediate(after);
    return c.body(null, 200);
  });
}

type Parsed = { kind: "url_verification"; challenge: string } | { kind: EnvelopeKind; body: unknown };

function parseBody(raw: string, contentType: string): Parsed | undefined {
  try {
    if (contentType.startsWith("application/x-www-form-urlencoded")) {
      const form = new URLSearchParams(raw);
      const payload = form.get("payload");
      if (payload !== null) return { kind: "interactive", body: JSON.parse(payload) as unknown };
      if (form.has("command")) return { kind: "slash_commands", body: Object.fromEntries(form) };
      return undefined;
    }
    const body = JSON.parse(raw) as { type?: unknown; challenge?: unknown };
    if (body.type === "url_verification" && typeof body.challenge === "string") return { kind: "url_verification", challenge: body.challenge };
    return body.type === "event_callback" ? { kind: "events_api", body } : undefined;
  } catch {
    return undefined;
  }
}
