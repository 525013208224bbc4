/**
 * One upload through the outbound service (which owns the retries), with a deadline so that a tool call does not
 * hang, and the difference that matters afterwards: a refusal (the platform answered no, or nothing arrived: safe
 * to try another way) versus an uncertain end (a timeout or a connection dropped after the request went out, as
 * the adapter classified it: the file may well have arrived, so sending it again could post it twice).
 */
import type { Outbound } from "../core/outbound.js";
import { SendError } from "../core/send-error.js";
import type { OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../core/types.js";
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

export async function sendWithDeadline(outbound: Outbound, to: OutboundTarget, file: OutboundFile, opts: SendOptions): Promise<SendOutcome> {
  const sendOptions: SendTextOptions = opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {};
  const attempt: Promise<SendOutcome> = outbound.sendFile(to, file, sendOptions).then(
    (message) => ({ kind: "sent", message }),
    (err: unknown) => ({ kind: isUncertain(err) ? "uncertain" : "refused", error: describe(err) }),
  );
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const cutOff = new Promise<SendOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "uncertain", error: `no confirmation from ${to.channel} within ${opts.timeoutMs / 1000} s` }), opts.timeoutMs);
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

/** What may have arrived, and what the adapter did not classify (the safe reading), is uncertain. */
function isUncertain(err: unknown): boolean {
  return !(err instanceof SendError) || err.kind === "uncertain" || err.repeatableUntil !== undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
