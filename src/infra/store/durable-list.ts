/**
 * A list of records by id for work that must survive a crash until it is done: a channel's inbox of messages not
 * yet handled, the outbox of replies not yet sent. Each record is an entry of the store's entry sets, added and
 * removed on its own, so a change costs the same however many records wait (a busy inbox holds hundreds), and
 * several replicas see one list without a lock.
 */
import type { EntrySets, Namespace, NamespaceName, Store } from "./types.js";

/** Where a durable list keeps its entries unless told otherwise (the inboxes do). */
export const DURABLE_LISTS: NamespaceName = "meta";

export class DurableList<T> {
  private readonly entries: EntrySets<T>;
  /** Where an earlier version kept the whole list as one record under the same key. */
  private readonly wholeRecords: Namespace<T[]>;
  private adopted: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly key: string,
    private readonly idOf: (entry: T) => string,
    private readonly opts: { namespace?: NamespaceName; ttlMs?: number } = {},
  ) {
    this.entries = store.sets<T>(opts.namespace ?? DURABLE_LISTS);
    this.wholeRecords = store.namespace<T[]>(opts.namespace ?? DURABLE_LISTS);
  }

  /** Adds the entry unless one with its id is already there; false when it was. */
  async add(entry: T): Promise<boolean> {
    await this.adoptWholeRecord();
    return this.entries.add(this.key, this.idOf(entry), entry, this.opts.ttlMs);
  }

  /** Replaces the entry with the same id; false when there is none (it was removed meanwhile). */
  async replace(entry: T): Promise<boolean> {
    await this.adoptWholeRecord();
    return this.entries.replace(this.key, this.idOf(entry), entry);
  }

  async remove(id: string): Promise<void> {
    await this.adoptWholeRecord();
    await this.entries.remove(this.key, id);
  }

  /** Every entry, oldest first, including what an earlier version left as one record. */
  async all(): Promise<T[]> {
    await this.adoptWholeRecord();
    return this.entries.all(this.key);
  }

  /**
   * Moves the entries of a list an earlier version stored as one record into the set, before this process's first
   * change or read, so an upgrade loses none of the messages or replies waiting in it. Under the lock the earlier
   * version changed the record under, so a second replica finds it gone rather than adopting it again.
   */
  private adoptWholeRecord(): Promise<void> {
    this.adopted ??= this.store.coordinator
      .withLock(this.key, async () => {
        const whole = await this.wholeRecords.get(this.key);
        if (!whole) return;
        for (const entry of whole) await this.entries.add(this.key, this.idOf(entry), entry, this.opts.ttlMs);
        await this.wholeRecords.delete(this.key);
      })
      .catch((err: unknown) => {
        this.adopted = undefined;
        throw err;
      });
    return this.adopted;
  }
}
