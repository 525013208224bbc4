/**
 * The one way a channel reports a failed send, so that one policy (src/gateway/outbound-service.ts) can decide about
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
   * platform deduplicates a repeat (SendError.repeatableUntil).
   */
  | { kind: "uncertain" }
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
  /**
   * Set when an attempt at the part still to go may have arrived and the send carried an idempotency key the
   * platform deduplicates by (Feishu's uuid, Discord's nonce): until this time (ms since the epoch) a repeat is
   * answered with what arrived; after it, a repeat could post it twice.
   */
  readonly repeatableUntil: number | undefined;
  /** How many times the send was tried before it failed: the outbound service's retries included. */
  readonly attempts: number;

  constructor(
    message: string,
    failure: SendFailure,
    opts: { cause?: unknown; sent?: readonly SentMessage[]; repeatableUntil?: number; attempts?: number } = {},
  ) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : {});
    this.failure = failure;
    this.sent = opts.sent ?? [];
    this.repeatableUntil = opts.repeatableUntil;
    this.attempts = opts.attempts ?? 1;
  }

  get kind(): SendFailureKind {
    return this.failure.kind;
  }

  /** The same failure, with the parts that arrived before it. */
  withSent(sent: readonly SentMessage[]): SendError {
    return this.with({ sent: [...sent, ...this.sent] });
  }

  /** The same failure, with the parts that arrived, the repeat window and the number of tries given. */
  with(changes: { sent?: readonly SentMessage[]; repeatableUntil?: number | undefined; attempts?: number }): SendError {
    const sent = changes.sent ?? this.sent;
    const repeatableUntil = "repeatableUntil" in changes ? changes.repeatableUntil : this.repeatableUntil;
    const attempts = changes.attempts ?? this.attempts;
    return new SendError(this.message, this.failure, { cause: this.cause, sent, attempts, ...(repeatableUntil !== undefined ? { repeatableUntil } : {}) });
  }
}

/**
 * A repeat needs time to reach the platform (a rate limit's wait, a slow connection): none is started this close to
 * the end of the platform's deduplication.
 */
const REPEAT_MARGIN_MS = 30_000;

/** Whether a repeat started at `now` is still deduplicated; true when nothing may have arrived (`until` undefined). */
export function repeatable(until: number | undefined, now: number): boolean {
  return until === undefined || now < until - REPEAT_MARGIN_MS;
}

/**
 * Until when the part still to go may be repeated after `failure`: the earlier window, unless parts arrived in this
 * attempt (the one that may have arrived was the first of them), and the failure's own, whichever ends first.
 */
export function repeatWindowAfter(earlier: number | undefined, failure: SendError): number | undefined {
  const kept = failure.sent.length > 0 ? undefined : earlier;
  if (kept === undefined) return failure.repeatableUntil;
  return failure.repeatableUntil === undefined ? kept : Math.min(kept, failure.repeatableUntil);
}

/**
 * Whether sending again can only help: nothing arrived, or what may have arrived is deduplicated for a while yet
 * (repeatableUntil), and the platform did not refuse the content.
 */
export function isRetryableSend(err: unknown, now = Date.now()): err is SendError {
  if (!(err instanceof SendError) || !repeatable(err.repeatableUntil, now)) return false;
  return err.kind === "rate_limited" || err.kind === "unavailable" || (err.kind === "uncertain" && err.repeatableUntil !== undefined);
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
