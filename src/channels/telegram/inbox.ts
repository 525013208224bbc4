/**
 * Updates received but not yet handled, kept in the store so that an update acknowledged to Telegram (webhook 200,
 * or a later getUpdates offset) survives a crash: the channel replays what is left here when it starts.
 */
import type { InboxEntry } from "../../core/types.js";
import { DurableList } from "../../infra/store/durable-list.js";
import type { Store } from "../../infra/store/types.js";
import type { RawUpdate } from "./schema.js";

/** Telegram keeps unconfirmed updates for 24 hours; an entry older than that is not worth replaying either. */
const INBOX_TTL_MS = 24 * 3_600_000;

export class UpdateInbox {
  private readonly list: DurableList<RawUpdate>;
  private readonly key: string;

  constructor(store: Store, botId: string) {
    this.key = `telegram-inbox:${botId}`;
    this.list = new DurableList(store, this.key, (u) => String(u.update_id), { ttlMs: INBOX_TTL_MS });
  }

  /** The update's entry, for the message made of it (InboundMessage.inbox). */
  entryOf(updateId: number): InboxEntry {
    return { list: this.key, id: String(updateId) };
  }

  /** Records the update unless an update with its id is already waiting; false when it was. */
  add(update: RawUpdate): Promise<boolean> {
    return this.list.add(update);
  }

  remove(updateId: number): Promise<void> {
    return this.list.remove(String(updateId));
  }

  pending(): Promise<RawUpdate[]> {
    return this.list.all();
  }
}
