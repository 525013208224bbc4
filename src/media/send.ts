/**
 * One upload through a channel, with a deadline, and the difference that matters afterwards: a refusal (the
 * platform answered no: safe to try another way) versus an uncertain end (a timeout or a dropped connection,
 * after which the file may well have arrived, so sending it again could post it twice).
 */
import type { Channel, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";

export type SendOutcome =
  | { kind: "sent"; message: SentMessage }
  | { kind: "refused"; error: string }
  | { kind: "uncertain"; error: string };

export interface SendOptions {
  timeoutMs: number;
  signal: AbortSignal;
  log: Logger;
  replyTo?: string;
}

/**
 * Signs of a connection that broke after the request may have gone out, in an error's code, name or message
 * (adapters often fold the system code into their message: "Network request failed (ECONNRESET)").
 */
const UNCERTAIN_TEXT = /\b(?:ETIMEDOUT|ECONNRESET|EPIPE|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|UND_ERR_SOCKET)\b|socket hang up|timed out|timeout/i;
const UNCERTAIN_NAMES = new Set(["TimeoutError", "AbortError"]);

export async function sendWithDeadline(channel: Channel, to: OutboundTarget, file: OutboundFile, opts: SendOptions): Promise<SendOutcome> {
  const sendOptions: SendTextOptions = opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {};
  const attempt: Promise<SendOutcome> = channel.sendFile(to, file, sendOptions).then(
    (message) => ({ kind: "sent", message }),
    (err: unknown) => ({ kind: isUncertain(err) ? "uncertain" : "refused", error: describe(err) }),
  );
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const cutOff = new Promise<SendOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "uncertain", error: `no confirmation from ${channel.name} within ${opts.timeoutMs / 1000} s` }), opts.timeoutMs);
    onAbort = () => resolve({ kind: "uncertain", error: "the turn was cancelled while the file was uploading" });
    opts.signal.addEventListener("abort", onAbort, { once: true });
  });
  const outcome = await Promise.race([attempt, cutOff]);
  clearTimeout(timer);
  if (onAbort) opts.signal.removeEventListener("abort", onAbort);
  if (outcome.kind === "uncertain") {
    // The upload goes on; what it finally did is only for the log, the receipt already said "timeout".
    void attempt.then((late) => {
      if (late.kind === "sent") opts.log.info({ messageId: late.message.messageId, file: file.name }, "a timed-out upload arrived after all");
    });
  }
  return outcome;
}

/** Walks the error and what it wraps: `cause`, or `error` where a library keeps it there (grammY's HttpError). */
function isUncertain(err: unknown): boolean {
  let current = err;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code ?? "";
    if (UNCERTAIN_NAMES.has(current.name) || UNCERTAIN_TEXT.test(`${code} ${current.message}`)) return true;
    current = current.cause ?? (current as { error?: unknown }).error;
  }
  return false;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
