/**
 * Failures of Telegram calls. Sends (sendMessage, sendPhoto, ...) are not retried here: their failures are
 * classified as SendError for the one outbound policy (src/gateway/outbound-service.ts). A send whose connection dropped
 * after the request went out is "uncertain", because Telegram may have delivered it and a retry would post the
 * message twice; only a failure to connect proves that nothing arrived. The transformer below retries only the
 * idempotent calls that are not sends (reads and settings: getFile, setWebhook, ...), which the outbound service
 * never sees. Edits and deletes are among them: repeating one changes nothing, but after an attempt that may have
 * been carried out (a 5xx, a dropped connection) Telegram answers the repeat "message is not modified" or "message
 * to delete not found", which means it was done, and is answered as done.
 */
import { GrammyError, HttpError, type Transformer } from "grammy";
import { httpFailure, networkFailure, SendError, type SendFailure } from "../../core/send-error.js";
import type { Logger } from "../../infra/log.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff after a 5xx or network failure; doubles each time. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A 429 asking for a longer wait fails at once instead of holding the reply. */
  maxRetryAfterSec: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 30_000, maxRetryAfterSec: 60 };

/** getUpdates runs its own loop with backoff. */
const NOT_RETRIED = new Set(["getUpdates"]);
/** Reads and settings: repeating them changes nothing. Sends (send*, forward*, copy*) go through the outbound policy. */
const IDEMPOTENT = /^(get|set|delete|edit)/;
/** What Telegram answers to a repeated edit or delete that the earlier attempt already carried out. */
const ALREADY_DONE: Array<{ method: RegExp; description: RegExp }> = [
  { method: /^edit/, description: /message is not modified/i },
  { method: /^delete(Message|Messages)$/, description: /message to delete not found/i },
];

export function retryTransformer(policy: RetryPolicy, log: Logger): Transformer {
  return async (prev, method, payload, signal) => {
    if (NOT_RETRIED.has(method) || !IDEMPOTENT.test(method)) return prev(method, payload, signal);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= policy.maxAttempts;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      let waitMs: number;
      let reason: string;
      try {
        const response = await prev(method, payload, signal);
        const retryAfter = response.ok ? undefined : response.parameters?.retry_after;
        if (!response.ok && attempt > 1 && doneBefore(method, response.description)) {
          log.info({ method, attempt }, "Telegram call was carried out by an earlier attempt");
          return { ok: true, result: true as never };
        }
        if (response.ok || last) return response;
        if (response.error_code === 429 && retryAfter !== undefined && retryAfter <= policy.maxRetryAfterSec) {
          waitMs = retryAfter * 1000;
        } else if (response.error_code >= 500) {
          waitMs = backoff;
        } else {
          return response;
        }
        reason = `${response.error_code} ${response.description}`;
      } catch (err) {
        if (last || signal?.aborted || !(err instanceof HttpError)) throw err;
        waitMs = backoff;
        reason = describeHttpError(err);
      }
      log.warn({ method, attempt, waitMs, reason }, "Telegram call failed; retrying");
      await pause(waitMs, signal);
    }
  };
}

function doneBefore(method: string, description: string): boolean {
  return ALREADY_DONE.some((rule) => rule.method.test(method) && rule.description.test(description));
}

/** How a failed send failed, for the outbound policy. */
export function sendFailureOf(err: unknown): SendFailure {
  if (err instanceof GrammyError) {
    const retryAfter = err.parameters.retry_after;
    return httpFailure(err.error_code, retryAfter !== undefined ? retryAfter * 1000 : undefined);
  }
  if (err instanceof HttpError) return networkFailure(err.error);
  return { kind: "uncertain" };
}

export function telegramSendError(message: string, err: unknown): SendError {
  return new SendError(message, sendFailureOf(err), { cause: err });
}

/** grammY's message plus the system error code; never the underlying message, which quotes the URL and so the token. */
export function describeHttpError(err: HttpError): string {
  const code = errorCode(err.error);
  return code ? `${err.message} (${code})` : err.message;
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** grammY hands transformers the signal of its own AbortController polyfill, so only these two methods are relied on. */
interface AbortListenable {
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

function pause(ms: number, signal: AbortListenable | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(new Error("Telegram call aborted while waiting to retry"));
    };
    signal?.addEventListener("abort", aborted);
  });
}
