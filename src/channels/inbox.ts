/**
 * The kit for "ack only after the event is stored" and "deferred means delivered again after a restart": a
 * channel records each inbound event here before it acknowledges it to the platform, settles it once the handler
 * is done, and replays what is still recorded when it starts. Entries leave when handled, so the list stays short.
 */
import type { HandleOutcome, InboundHandler, InboundMessage, InboxEntry } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import { DurableList } from "../infra/store/durable-list.js";
import type { Store } from "../infra/store/types.js";

/** Platforms stop redelivering after about a day; an older entry is not worth replaying either. */
const INBOX_TTL_MS = 24 * 3_600_000;

export class ChannelInbox<T> {
  private readonly list: DurableList<T>;

  constructor(
    store: Store,
    /** One inbox per channel and account, e.g. `echo-inbox:<bot id>`. */
    private readonly key: string,
    private readonly idOf: (event: T) => string,
  ) {
    this.list = new DurableList(store, key, idOf, { ttlMs: INBOX_TTL_MS });
  }

  /** The event's entry, for the message made of it (InboundMessage.inbox). */
  entryOf(event: T): InboxEntry {
    return { list: this.key, id: this.idOf(event) };
  }

  /** Stores the event; only then may it be acknowledged. False when it is already waiting (a redelivery). */
  record(event: T): Promise<boolean> {
    return this.list.add(event);
  }

  /**
   * After the handler: forgotten, unless it was deferred (then the next start hands it over again) or the entry
   * handed over with it was removed already, with the record that the message was answered.
   */
  async settle(event: T, outcome: HandleOutcome, entry?: InboxEntry): Promise<void> {
    if (outcome !== "deferred" && entry?.removed !== true) await this.list.remove(this.idOf(event));
  }

  /** What a previous run recorded and did not finish, oldest first. */
  pending(): Promise<T[]> {
    return this.list.all();
  }
}

/** An InboundMessage as stored: the date as text, without the platform payload. */
type StoredMessage = Omit<InboundMessage, "receivedAt" | "raw" | "inbox"> & { receivedAt: string };

function storedOf(message: InboundMessage): StoredMessage {
  const { raw: _raw, inbox: _inbox, receivedAt, ...rest } = message;
  return { ...rest, receivedAt: receivedAt.toISOString() };
}

/**
 * For platforms that neither redeliver nor need an ack (Discord's gateway, Feishu's long connection): the
 * normalized message is what is kept, and `handOver` runs the record-handle-settle sequence.
 */
export class MessageInbox {
  private readonly inbox: ChannelInbox<StoredMessage>;

  constructor(store: Store, key: string) {
    this.inbox = new ChannelInbox<StoredMessage>(store, key, (m) => m.id);
  }

  /** Stores the message: from then on it may be acknowledged. False when it is already waiting (a redelivery). */
  record(message: InboundMessage): Promise<boolean> {
    return this.inbox.record(storedOf(message));
  }

  /** Forgets a recorded message once handled, unless it was deferred: for a channel that awaits the handler itself. */
  settle(message: InboundMessage, outcome: HandleOutcome): Promise<void> {
    return this.inbox.settle(storedOf(message), outcome);
  }

  /** Hands a recorded message to the handler and forgets it unless deferred. Never rejects. */
  async handle(message: InboundMessage, handler: InboundHandler, log: Logger): Promise<HandleOutcome | null> {
    try {
      const stored = storedOf(message);
      const entry = this.inbox.entryOf(stored);
      const outcome = await handler({ ...message, inbox: entry });
      await this.inbox.settle(stored, outcome, entry);
      return outcome;
    } catch (err) {
      log.error({ err, messageId: message.id, chatId: message.chat.id }, "handling an inbound message failed");
      return null;
    }
  }

  /** record, then handle: for platforms with nothing to acknowledge. */
  async handOver(message: InboundMessage, handler: InboundHandler, log: Logger): Promise<HandleOutcome | null> {
    const recorded = await this.record(message).catch((err: unknown) => {
      log.error({ err, messageId: message.id }, "could not record an inbound message; handling it without a safety copy");
      return true;
    });
    // A message already waiting is being handled (or waits for the next start): not handed over twice.
    return recorded ? this.handle(message, handler, log) : null;
  }

  /** Hands over again what a previous run deferred or did not finish. */
  async replay(handler: InboundHandler, log: Logger): Promise<void> {
    for (const stored of await this.inbox.pending()) {
      const entry = this.inbox.entryOf(stored);
      const message: InboundMessage = { ...stored, receivedAt: new Date(stored.receivedAt), inbox: entry };
      try {
        await this.inbox.settle(stored, await handler(message), entry);
      } catch (err) {
        log.error({ err, messageId: message.id }, "handling a replayed inbound message failed");
      }
    }
  }
}
