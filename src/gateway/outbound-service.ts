/**
 * The one outbound service: every reply, reminder and artifact goes out through here, and only here is a failed
 * send tried again. Adapters classify their failures as SendError (src/core/send-error.ts); this applies one
 * policy to all of them: a 429 (after its retry_after), a 5xx and a connection that could not be made are retried
 * a bounded number of times at once; a refused send is not, nor an uncertain one, unless the platform deduplicates
 * its repeat (SendError.repeatableUntil: only until then, which every later failure of the same part keeps). A text
 * that still fails waits in the durable outbox (outbox.ts), tried with backoff for `outboxRetryMinutes`.
 */
import { randomUUID } from "node:crypto";
import pRetry from "p-retry";
import type { Outbound, SentText, TextDelivery, TextSendOptions } from "../core/outbound.js";
import { asSendError, isRetryableSend, repeatWindowAfter, SendError } from "../core/send-error.js";
import type { Channel, ChannelName, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../core/types.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { Logger } from "../infra/log.js";
import { inSpan } from "../infra/tracing.js";
import type { Store } from "../infra/store/types.js";
import { Outbox, type OutboxEntry } from "./outbox.js";

export type OutboundConfig = CoreConfig["outbound"];

export interface OutboundDeps {
  config: OutboundConfig;
  store: Store;
  log: Logger;
  channelOf: (name: ChannelName) => Channel | undefined;
}

export class OutboundService implements Outbound {
  readonly outbox: Outbox;

  constructor(private readonly deps: OutboundDeps) {
    const { outboxRetryMinutes, outboxBaseDelayMs, outboxMaxDelayMs } = deps.config;
    this.outbox = new Outbox(
      deps.store,
      deps.log,
      { retryForMs: outboxRetryMinutes * 60_000, baseDelayMs: outboxBaseDelayMs, maxDelayMs: outboxMaxDelayMs },
      (entry) => this.sendQueued(entry),
    );
  }

  /** Drains what the outbox kept from the last run; call after the channels have started. */
  start(): Promise<void> {
    return this.outbox.start();
  }

  stop(): Promise<void> {
    return this.outbox.stop();
  }

  async sendText(to: OutboundTarget, text: string, opts: TextSendOptions = {}): Promise<SentMessage[]> {
    return (await this.sendTextCounted(to, text, opts)).messages;
  }

  async sendTextCounted(to: OutboundTarget, text: string, opts: TextSendOptions = {}): Promise<SentText> {
    const { context: _context, repeatableUntil: earlier, ...rest } = opts;
    const sendOpts = { ...rest, idempotencyKey: rest.idempotencyKey ?? randomUUID() };
    const sent: SentMessage[] = [];
    const from = sendOpts.fromPart ?? 0;
    let repeatableUntil = earlier;
    const { value: messages, attempts } = await this.withRetries(to, "text", async (channel) => {
      try {
        sent.push(...(await channel.sendText(to, text, { ...sendOpts, fromPart: from + sent.length })));
        return sent;
      } catch (err) {
        const failure = asSendError(err, `sending text to ${to.channel} chat ${to.chatId}`);
        repeatableUntil = repeatWindowAfter(repeatableUntil, failure);
        sent.push(...failure.sent);
        // What arrived so far travels with the error, so a caller (the outbox) resumes after it.
        throw failure.with({ sent: [...sent], repeatableUntil });
      }
    });
    return { messages, attempts };
  }

  async deliverText(to: OutboundTarget, text: string, opts: TextSendOptions = {}): Promise<TextDelivery> {
    const idempotencyKey = opts.idempotencyKey ?? randomUUID();
    try {
      return { status: "sent", messages: await this.sendText(to, text, { ...opts, idempotencyKey }) };
    } catch (err) {
      if (!isRetryableSend(err)) throw err;
      const entry = await this.outbox.add({
        ...(err.repeatableUntil !== undefined ? { repeatableUntil: err.repeatableUntil } : {}),
        to,
        text,
        fromPart: (opts.fromPart ?? 0) + err.sent.length,
        idempotencyKey,
        lastError: err.message,
        ...(opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {}),
        ...(opts.buttons ? { buttons: opts.buttons } : {}),
        ...(opts.context ? { context: opts.context } : {}),
      });
      this.deps.log.warn({ ...opts.context, outboxId: entry.id, channel: to.channel, chatId: to.chatId, kind: err.kind, err: err.message }, "reply failed for now; queued in the outbox");
      return { status: "queued", outboxId: entry.id, messages: [...err.sent] };
    }
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const sendOpts = { ...opts, idempotencyKey: opts.idempotencyKey ?? randomUUID() };
    let repeatableUntil: number | undefined;
    const { value } = await this.withRetries(to, "file", async (channel) => {
      try {
        return await channel.sendFile(to, file, sendOpts);
      } catch (err) {
        const failure = asSendError(err, `sending ${file.name} to ${to.channel} chat ${to.chatId}`);
        repeatableUntil = repeatWindowAfter(repeatableUntil, failure);
        throw failure.with({ repeatableUntil });
      }
    });
    return value;
  }

  /** One attempt for the outbox: its own backoff spaces the attempts. */
  private async sendQueued(entry: OutboxEntry): Promise<SentMessage[]> {
    const channel = this.channel(entry.to);
    try {
      const { fromPart, idempotencyKey, replyTo, buttons } = entry;
      return await channel.sendText(entry.to, entry.text, { fromPart, idempotencyKey, ...(replyTo !== undefined ? { replyTo } : {}), ...(buttons ? { buttons } : {}) });
    } catch (err) {
      throw asSendError(err, `sending a queued reply to ${entry.to.channel} chat ${entry.to.chatId}`);
    }
  }

  /** Runs `attempt` under the retry policy; answers its value and the number of tries, which a failure carries too. */
  private withRetries<T>(to: OutboundTarget, what: "text" | "file", attempt: (channel: Channel) => Promise<T>): Promise<{ value: T; attempts: number }> {
    return inSpan(`send ${what}`, { "messaging.system": to.channel, "messaging.destination.name": to.chatId }, async (span) => {
      const { attempts, baseDelayMs, maxRetryAfterMs } = this.deps.config;
      let tries = 0;
      const tryOnce = (): Promise<T> => {
        tries += 1;
        return attempt(this.channel(to));
      };
      try {
        const value = await pRetry(tryOnce, {
          retries: attempts - 1,
          minTimeout: baseDelayMs,
          factor: 2,
          randomize: true,
          shouldRetry: ({ error }) => isRetryableSend(error) && (retryAfterOf(error) ?? 0) <= maxRetryAfterMs,
          onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
            if (!isRetryableSend(error) || retriesLeft === 0) return;
            const retryAfterMs = retryAfterOf(error) ?? 0;
            if (retryAfterMs > maxRetryAfterMs) return;
            this.deps.log.debug({ channel: to.channel, chatId: to.chatId, what, attemptNumber, kind: error.kind, retryAfterMs }, "send failed; retrying");
            span.addEvent("retry", { attempt: attemptNumber, kind: error.kind, retryAfterMs });
            // The platform's wait comes first; p-retry's own short backoff follows it.
            if (retryAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
          },
        });
        return { value, attempts: tries };
      } catch (err) {
        throw err instanceof SendError ? err.with({ attempts: tries }) : err;
      } finally {
        span.setAttribute("switchboard.send.attempts", tries);
      }
    });
  }

  private channel(to: OutboundTarget): Channel {
    const channel = this.deps.channelOf(to.channel);
    if (!channel) throw new SendError(`the ${to.channel} channel is not running`, { kind: "unavailable" });
    return channel;
  }
}

function retryAfterOf(err: SendError): number | undefined {
  return err.failure.kind === "rate_limited" ? err.failure.retryAfterMs : undefined;
}
