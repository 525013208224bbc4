/**
 * The outbound port: how the gateway and the engines (scheduler, media) send. Every reply, reminder and artifact
 * goes through one implementation (src/gateway/outbound-service.ts), which owns the one retry policy; callers never retry
 * and never call Channel.sendText/sendFile themselves.
 */
import type { OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "./types.js";

/** What became of a text that may wait in the outbox. */
export type TextDelivery =
  | { status: "sent"; messages: SentMessage[] }
  /** The immediate attempts failed; the outbox sends the rest later (and reports a final failure in the log). */
  | { status: "queued"; outboxId: string; messages: SentMessage[] };

/** A text sent now, and how many tries the outbound service needed for it. */
export interface SentText {
  messages: SentMessage[];
  attempts: number;
}

export interface TextSendOptions extends SendTextOptions {
  /** Log context for a failure that is finally given up (e.g. the trace id of the turn). */
  context?: Record<string, string>;
  /**
   * An earlier attempt at this send (same idempotency key), made elsewhere, may have arrived: until this time the
   * platform answers a repeat with it (SendError.repeatableUntil of that attempt).
   */
  repeatableUntil?: number;
}

export interface Outbound {
  /** Sends now, with the bounded immediate retries; throws a SendError (src/core/send-error.ts) when that fails. */
  sendText(to: OutboundTarget, text: string, opts?: TextSendOptions): Promise<SentMessage[]>;
  /** sendText, also saying how many tries it took; a failure's SendError says how many were made (its `attempts`). */
  sendTextCounted(to: OutboundTarget, text: string, opts?: TextSendOptions): Promise<SentText>;
  /** Like sendText, but what still fails after the immediate retries goes to the durable outbox instead of throwing. */
  deliverText(to: OutboundTarget, text: string, opts?: TextSendOptions): Promise<TextDelivery>;
  /** One upload, with the immediate retries; throws a SendError. Files are not kept in the outbox (they are local). */
  sendFile(to: OutboundTarget, file: OutboundFile, opts?: SendTextOptions): Promise<SentMessage>;
}
