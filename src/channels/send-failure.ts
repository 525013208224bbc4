/**
 * The channel kit's classification of a failed platform call for the one retry policy (src/core/send-error.ts):
 * each adapter says what the call's answer was, this says what kind of failure that is for a send.
 */
import { SendError } from "../core/send-error.js";

/** What a failed call to a platform's API got back. */
export interface CallOutcome {
  /** HTTP status of the answer; null when none came (network error, timeout). */
  httpStatus: number | null;
  /** Without an answer: the request may have reached the platform. */
  uncertain: boolean;
  /** The platform asked to slow down (HTTP 429, or its own code for it). */
  rateLimited?: boolean;
  /** The platform said it is busy (a 5xx, or its own code for it). */
  busy?: boolean;
}

/**
 * `call` null: the failure is not the platform's answer (a bug, a malformed answer), so the send may have arrived.
 * `harmless`: nothing shows in the chat (an upload), so a repeat is safe even when the call may have arrived.
 */
export function sendFailure(detail: string, cause: unknown, call: CallOutcome | null, harmless: boolean): SendError {
  if (call === null) return new SendError(detail, { kind: "uncertain" }, { cause });
  if (call.rateLimited || call.httpStatus === 429) return new SendError(detail, { kind: "rate_limited" }, { cause });
  if (call.busy || (call.httpStatus ?? 0) >= 500) return new SendError(detail, { kind: "unavailable" }, { cause });
  if (call.httpStatus === null) return new SendError(detail, { kind: call.uncertain && !harmless ? "uncertain" : "unavailable" }, { cause });
  return new SendError(detail, { kind: "rejected" }, { cause });
}
