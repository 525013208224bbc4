/**
 * When a failed Open API call is worth repeating, and the loop that repeats it: for reads (bot info, downloads).
 * Sends and uploads get one try here (after a rejected token, one more with a new token), and their failures are
 * classified as SendError for the one outbound policy (src/gateway/outbound-service.ts), which does the retrying.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../../infra/log.js";
import { httpFailure, networkFailure, SendError, type SendFailure } from "../../core/send-error.js";
import { FeishuApiError } from "./http.js";

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 10_000 };

/** "request trigger frequency limit" (any API) and the per-chat message send limit. */
const RATE_LIMIT_CODES = new Set([99991400, 230020]);
/** The tenant access token is missing, invalid or expired. */
const TOKEN_REJECTED_CODES = new Set([99991661, 99991663, 99991668]);

export function isTokenRejected(err: unknown): boolean {
  return err instanceof FeishuApiError && err.code !== null && TOKEN_REJECTED_CODES.has(err.code);
}

export function isRetryable(err: unknown): boolean {
  if (!(err instanceof FeishuApiError)) return false;
  if (err.code !== null && RATE_LIMIT_CODES.has(err.code)) return true;
  return err.httpStatus === null || err.httpStatus === 429 || err.httpStatus >= 500;
}

/** No retries beyond the fresh token: the outbound service decides. */
export const SEND_ONCE: RetryPolicy = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 };

/** Feishu sends one message per uuid within an hour. */
const UUID_WINDOW_MS = 60 * 60_000;

/**
 * What repeating a call that got no answer would do: post again ("unsafe"), nothing anyone sees (an upload:
 * "harmless"), or be answered with what arrived (a send with a uuid made at `sentAt`, for the hour Feishu keeps it).
 */
export type RepeatEffect = "unsafe" | "harmless" | { sentAt: number };

/** How a send or upload failed. Without an answer the request may have arrived: uncertain, unless repeating it is harmless. */
export function sendFailureOf(err: unknown, repeat: RepeatEffect): SendFailure {
  if (!(err instanceof FeishuApiError)) return { kind: "uncertain" };
  const retryAfterMs = err.retryAfterMs ?? undefined;
  if (err.code !== null && RATE_LIMIT_CODES.has(err.code)) return retryAfterMs !== undefined ? { kind: "rate_limited", retryAfterMs } : { kind: "rate_limited" };
  if (err.httpStatus === null) {
    return repeat === "harmless" ? { kind: "unavailable" } : networkFailure(err.cause);
  }
  if (err.httpStatus === 200) return { kind: "rejected" };
  return httpFailure(err.httpStatus, retryAfterMs);
}

export function feishuSendError(message: string, err: unknown, repeat: RepeatEffect): SendError {
  const failure = sendFailureOf(err, repeat);
  const deduplicated = typeof repeat === "object" && failure.kind === "uncertain" ? { repeatableUntil: repeat.sentAt + UUID_WINDOW_MS } : {};
  return new SendError(message, failure, { cause: err, ...deduplicated });
}

export interface RetryHooks {
  /** Forget the cached token, so the next try fetches a new one. Done once per call. */
  dropToken(): void;
  log: Logger;
  /** Names the call in log lines. */
  what: string;
}

export async function withRetries<T>(fn: () => Promise<T>, policy: RetryPolicy, hooks: RetryHooks): Promise<T> {
  let tokenDropped = false;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (err) {
      if (isTokenRejected(err) && !tokenDropped) {
        tokenDropped = true;
        hooks.log.info({ call: hooks.what }, "Feishu rejected the tenant access token; fetching a new one");
        hooks.dropToken();
        attempt -= 1;
        continue;
      }
      if (!isRetryable(err) || attempt >= policy.attempts) throw err;
      const waitMs = Math.min(
        (err as FeishuApiError).retryAfterMs ?? policy.baseDelayMs * 2 ** (attempt - 1),
        policy.maxDelayMs,
      );
      hooks.log.debug({ call: hooks.what, attempt, waitMs, err: (err as Error).message }, "Feishu call failed; retrying");
      await delay(waitMs);
    }
  }
}
