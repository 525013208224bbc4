/**
 * The one way a channel reports a failed send, so that one policy (src/gateway/outbound.ts) can decide about
 * retries for every platform. Adapters classify; they do not retry sends themselves.
 */
import type { SentMessage } from "./types.js";

export type SendFailure =
  /** The platform asked us to slow down; `retryAfterMs` is its wait when it gave one. */
  | { kind: "rate_limited"; retryAfterMs?: number }
  /** Nothing arrived: a 5xx answer, or no connection was made. Safe to send again. */
  | { kind: "unavailable" }
  /**
   * The request may have reached the platform (connection dropped after sending, timeout). Never resent, unless the
   * send carried an idempotency key the platform deduplicates by (Feishu's uuid, Discord's nonce): then a repeat
   * within `repeatableForMs` of this attempt is answered with what arrived, and is safe.
   */
  | { kind: "uncertain"; repeatableForMs?: number }
  /** The platform answered no (bad request, forbidden, too large): sending again would get the same answer. */
  | { kind: "rejected" };

export type SendFailureKind = SendFailure["kind"];

export class SendError extends Error {
  override name = "SendError";
  readonly failure: SendFailure;
  /**
   * The parts of a multi-part text that did arrive before the failure, in order. A retry resumes after them
   * (SendTextOptions.fromPart), so no part is posted twice.
   */
  readonly sent: readonly SentMessage[];

  constructor(message: string, failure: SendFailure, opts: { cause?: unknown; sent?: readonly SentMessage[] } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : {});
    this.failure = failure;
    this.sent = opts.sent ?? [];
  }

  get kind(): SendFailureKind {
    return this.failure.kind;
  }

  /** The same failure, with the parts that arrived before it. */
  withSent(sent: readonly SentMessage[]): SendError {
    return new SendError(this.message, this.failure, { cause: this.cause, sent: [...sent, ...this.sent] });
  }
}

/**
 * Whether sending again can only help: nothing arrived, or what may have arrived is deduplicated (for a while: see
 * repeatableForMsOf), and the platform did not refuse the content.
 */
export function isRetryableSend(err: unknown): err is SendError {
  return err instanceof SendError && (err.kind === "rate_limited" || err.kind === "unavailable" || repeatableForMsOf(err) !== undefined);
}

/** For a send that may have arrived and that the platform deduplicates: how long after the attempt a repeat is safe. */
export function repeatableForMsOf(err: SendError): number | undefined {
  return err.failure.kind === "uncertain" ? err.failure.repeatableForMs : undefined;
}

/** `failure` of a send the platform deduplicates by its key for `windowMs`: one that may have arrived may be repeated. */
export function withRepeatWindow(failure: SendFailure, windowMs: number): SendFailure {
  return failure.kind === "uncertain" ? { kind: "uncertain", repeatableForMs: windowMs } : failure;
}

/** Any error as a SendError; one an adapter did not classify counts as uncertain, the safe reading. */
export function asSendError(err: unknown, context: string): SendError {
  if (err instanceof SendError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new SendError(`${context}: ${message}`, { kind: "uncertain" }, { cause: err });
}

/**
 * Error codes raised before a connection existed, so the request cannot have reached the server; any other
 * network failure may have happened after the request went out.
 */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/** Classifies a network-level failure (no HTTP answer) by the system code found in the error or what it wraps. */
export function networkFailure(err: unknown): SendFailure {
  let current: unknown = err;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string" && NOT_CONNECTED.has(code)) return { kind: "unavailable" };
    current = current.cause ?? (current as { error?: unknown }).error;
  }
  return { kind: "uncertain" };
}

/** Classifies an HTTP answer that was not a success. */
export function httpFailure(status: number, retryAfterMs?: number): SendFailure {
  if (status === 429) return retryAfterMs !== undefined ? { kind: "rate_limited", retryAfterMs } : { kind: "rate_limited" };
  if (status >= 500) return { kind: "unavailable" };
  return { kind: "rejected" };
}
