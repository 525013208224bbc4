/**
 * Every event Feishu pushes, over the long connection or the webhook, arrives here as its schema 2.0 envelope.
 * Message events are deduplicated by event_id (the router then deduplicates by message id), normalized, recorded
 * in the store-backed inbox (so the acknowledgment follows the store, and a message deferred at shutdown is handed
 * over again at the next start) and handed to the router in the background, so the acknowledgment Feishu waits for
 * never waits for a turn. Other event
 * types, and payloads that fail validation, are logged and acknowledged.
 */
import { z } from "zod";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import type { InboundHandler, InboundMessage } from "../../core/types.js";
import { MessageInbox } from "../inbox.js";
import type { BotMessages } from "./bot-messages.js";
import { messageEventSchema, toInboundMessage } from "./normalize.js";

const MESSAGE_RECEIVED = "im.message.receive_v1";

const envelopeSchema = z.object({
  schema: z.literal("2.0"),
  header: z.object({ event_id: z.string().min(1), event_type: z.string() }),
  event: z.unknown(),
});

export interface FeishuEventsOptions {
  log: Logger;
  store: Store;
  botMessages: BotMessages;
  /** How long an event id is remembered. */
  dedupTtlMs: number;
}

export class FeishuEvents {
  private handler: InboundHandler | undefined;
  private botOpenId = "";
  private readonly inFlight = new Set<Promise<void>>();
  /** Events are taken one at a time, so messages reach the router in the order they arrived. */
  private queue: Promise<void> = Promise.resolve();
  private readonly inbox: MessageInbox;

  constructor(private readonly opts: FeishuEventsOptions) {
    this.inbox = new MessageInbox(opts.store, "feishu-inbox");
  }

  /** Starts handing messages to `handler`; `botOpenId` finds the bot's own mentions. */
  attach(handler: InboundHandler, botOpenId: string): void {
    this.handler = handler;
    this.botOpenId = botOpenId;
    this.track(this.inbox.replay(handler, this.opts.log));
  }

  /** Stops handing messages over and waits for those already handed over. */
  async detach(): Promise<void> {
    this.handler = undefined;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Takes one pushed event. Resolves once it is checked and handed over (not handled); never rejects. */
  accept(payload: unknown): Promise<void> {
    const taken = this.queue.then(() => this.take(payload));
    this.queue = taken;
    return taken;
  }

  private async take(payload: unknown): Promise<void> {
    const { log } = this.opts;
    const envelope = envelopeSchema.safeParse(payload);
    if (!envelope.success) {
      log.warn({ problems: z.prettifyError(envelope.error) }, "ignored a Feishu event that is not a schema 2.0 envelope");
      return;
    }
    const { event_id: eventId, event_type: eventType } = envelope.data.header;
    if (eventType !== MESSAGE_RECEIVED) {
      log.debug({ eventId, eventType }, "ignored a Feishu event of a type the gateway does not handle");
      return;
    }
    const event = messageEventSchema.safeParse(envelope.data.event);
    if (!event.success) {
      log.warn({ eventId, problems: z.prettifyError(event.error) }, "ignored a malformed Feishu message event");
      return;
    }
    const { handler } = this;
    if (!handler) {
      // Not recorded as seen: Feishu pushes it again, and a running channel then handles it.
      log.warn({ eventId }, "a Feishu message arrived while the channel is stopped; not handled");
      return;
    }
    try {
      if (!(await this.opts.store.coordinator.setIfAbsent(`feishu:event:${eventId}`, this.opts.dedupTtlMs))) {
        log.debug({ eventId }, "duplicate Feishu event dropped");
        return;
      }
      const parentId = event.data.message.parent_id;
      const repliesToBot = parentId ? await this.opts.botMessages.isBots(parentId) : false;
      const message = toInboundMessage(event.data, { botOpenId: this.botOpenId, repliesToBot });
      if (await this.inbox.record(message)) this.handOver(handler, message, eventId);
    } catch (err) {
      log.error({ err, eventId }, "could not take a Feishu message event");
    }
  }

  private handOver(handler: InboundHandler, message: InboundMessage, eventId: string): void {
    const log = this.opts.log.child({ eventId, messageId: message.id, chatId: message.chat.id });
    this.track(this.inbox.handle(message, handler, log).then((outcome) => log.debug({ outcome }, "Feishu message handled")));
  }

  private track(work: Promise<unknown>): void {
    const task = work.then(() => undefined).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }
}
