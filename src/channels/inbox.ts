/**
 * The kit for "ack only after the event is stored" and "deferred means delivered again after a restart": a
 * channel records each inbound event here before it acknowledges it to the platform, settles it once the handler
 * is done, and replays what is still recorded when it starts. Entries leave when handled, so the list stays short.
 */
import type { HandleOutcome } from "../core/types.js";
import { DurableList } from "../infra/store/durable-list.js";
import type { Store } from "../infra/store/types.js";

/** Platforms stop redelivering after about a day; an older entry is not worth replaying either. */
const INBOX_TTL_MS = 24 * 3_600_000;

export class ChannelInbox<T> {
  private readonly list: DurableList<T>;

  constructor(
    store: Store,
    /** One inbox per channel and account, e.g. `echo-inbox:<bot id>`. */
    key: string,
    private readonly idOf: (event: T) => string,
  ) {
    this.list = new DurableList(store, key, idOf, { ttlMs: INBOX_TTL_MS });
  }

  /** Stores the event; only then may it be acknowledged. False when it is already waiting (a redelivery). */
  record(event: T): Promise<boolean> {
    return this.list.add(event);
  }

  /** After the handler: forgotten, unless it was deferred (then the next start hands it over again). */
  async settle(event: T, outcome: HandleOutcome): Promise<void> {
    if (outcome !== "deferred") await this.list.remove(this.idOf(event));
  }

  /** What a previous run recorded and did not finish, oldest first. */
  pending(): Promise<T[]> {
    return this.list.all();
  }
}
