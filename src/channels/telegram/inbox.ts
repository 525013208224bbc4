/**
 * Updates received but not yet handled, kept in the store so that an update acknowledged to Telegram (webhook 200,
 * or a later getUpdates offset) survives a crash: the channel replays what is left here when it starts. One list per
 * bot under a lock; it stays short, since an entry lives only while its message is being handled.
 */
import type { Namespace, Store } from "../../infra/store/types.js";
import type { RawUpdate } from "./schema.js";

/** Telegram keeps unconfirmed updates for 24 hours; an entry older than that is not worth replaying either. */
const INBOX_TTL_MS = 24 * 3_600_000;

export class UpdateInbox {
  private readonly records: Namespace<RawUpdate[]>;
  private readonly key: string;

  constructor(
    private readonly store: Store,
    botId: string,
  ) {
    this.records = store.namespace<RawUpdate[]>("meta");
    this.key = `telegram-inbox:${botId}`;
  }

  /** Records the update unless an update with its id is already waiting; false when it was. */
  add(update: RawUpdate): Promise<boolean> {
    return this.change((pending) => (pending.some((u) => u.update_id === update.update_id) ? undefined : [...pending, update]));
  }

  async remove(updateId: number): Promise<void> {
    await this.change((pending) => (pending.some((u) => u.update_id === updateId) ? pending.filter((u) => u.update_id !== updateId) : undefined));
  }

  async pending(): Promise<RawUpdate[]> {
    return (await this.records.get(this.key)) ?? [];
  }

  /** `edit` answers the new list, or undefined to leave it as it is. */
  private change(edit: (pending: RawUpdate[]) => RawUpdate[] | undefined): Promise<boolean> {
    return this.store.coordinator.withLock(this.key, async () => {
      const next = edit(await this.pending());
      if (next === undefined) return false;
      if (next.length === 0) await this.records.delete(this.key);
      else await this.records.set(this.key, next, INBOX_TTL_MS);
      return true;
    });
  }
}
