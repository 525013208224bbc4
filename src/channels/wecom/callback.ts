/**
 * The callback routes on the gateway's HTTP server. `GET` is WeCom's URL verification: the signature over the
 * `echostr` checked, the echostr decrypted and answered as bare text (no quotes, no newline). `POST` carries an
 * encrypted XML message: signature first, then decryption and the corp id; a wrong one is refused (401, 403) and
 * nothing is processed. A good one is recorded before the empty 200 goes back, and handled afterwards, since WeCom
 * gives up after 5 s and pushes it again (three times, same MsgId).
 */
import { bodyLimit } from "hono/body-limit";
import type { Context } from "hono";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import { openCallback, type CallbackKeys, type SignedQuery } from "./crypto.js";
import { envelopeSchema, parseXml } from "./normalize.js";

/** A callback is a few kilobytes of XML. */
const MAX_BODY_BYTES = 256 * 1024;

export interface CallbackOptions {
  path: string;
  keys: CallbackKeys;
  log: Logger;
  /** Takes a decrypted callback: resolves once it is recorded (or dropped), before the answer; undefined while stopped. */
  receiver(): ((plaintext: string) => Promise<void>) | undefined;
}

export function registerCallback(http: HttpServer, opts: CallbackOptions): void {
  const { log, keys } = opts;
  http.app.get(opts.path, (c) => {
    const echostr = c.req.query("echostr");
    if (!echostr) return refuse(c, log, 400, "echostr is missing");
    const opened = openCallback(echostr, queryOf(c), keys);
    if (!opened.ok) return refuse(c, log, opened.status, opened.reason);
    log.info("answered WeCom's callback URL verification");
    return c.body(opened.plaintext, 200, { "content-type": "text/plain; charset=utf-8" });
  });
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.text(`the body is larger than ${MAX_BODY_BYTES} bytes`, 413) });
  http.app.post(opts.path, limit, async (c) => {
    const receive = opts.receiver();
    // 503: WeCom pushes the message again later, when a running channel can take it.
    if (!receive) return c.text("the WeCom channel is not running", 503);
    const envelope = envelopeSchema.safeParse(parseXml(await c.req.text()));
    if (!envelope.success) return refuse(c, log, 400, "the body is not WeCom's encrypted XML");
    const opened = openCallback(envelope.data.xml.Encrypt, queryOf(c), keys);
    if (!opened.ok) return refuse(c, log, opened.status, opened.reason);
    try {
      await receive(opened.plaintext);
    } catch (err) {
      // Not recorded: a 500 makes WeCom push it again.
      log.error({ err }, "could not record a WeCom callback");
      return c.text("could not record the message", 500);
    }
    return c.body(null, 200);
  });
}

function queryOf(c: Context): SignedQuery {
  return { msg_signature: c.req.query("msg_signature"), timestamp: c.req.query("timestamp"), nonce: c.req.query("nonce") };
}

function refuse(c: Context, log: Logger, status: 400 | 401 | 403, reason: string): Response {
  log.warn({ status, reason }, "refused a WeCom callback request");
  return c.text(reason, status);
}
