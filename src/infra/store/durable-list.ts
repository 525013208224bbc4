/**
 * A short list of records kept in the store under one key and changed only under the store's lock, so that
 * several replicas see one list. For work that must survive a crash until it is done: a channel's inbox of
 * messages not yet handled, the outbox of replies not yet sent. Each list stays short (entries leave when done).
 */
import type { Namespace, NamespaceName, Store } from "./types.js";

export class DurableList<T> {
  private readonly records: Namespace<T[]>;

  constructor(
    private readonly store: Store,
    private readonly key: string,
    private readonly idOf: (entry: T) => string,
    private readonly opts: { namespace?: NamespaceName; ttlMs?: number } = {},
  ) {
    this.records = store.namespace<T[]>(opts.namespace ?? "meta");
  }

  /** Adds the entry unless one with its id is already there; false when it was. */
  add(entry: T): Promise<boolean> {
    const id = this.idOf(entry);
    return this.change((all) => (all.some((e) => this.idOf(e) === id) ? undefined : [...all, entry]));
  }

  /** Replaces the entry with the same id; false when there is none (it was removed meanwhile). */
  replace(entry: T): Promise<boolean> {
    const id = this.idOf(entry);
    return this.change((all) => (all.some((e) => this.idOf(e) === id) ? all.map((e) => (this.idOf(e) === id ? entry : e)) : undefined));
  }

  async remove(id: string): Promise<void> {
    await this.change((all) => (all.some((e) => this.idOf(e) === id) ? all.filter((e) => this.idOf(e) !== id) : undefined));
  }

  async all(): Promise<T[]> {
    return (await this.records.get(this.key)) ?? [];
  }

  /** `edit` answers the new list, or undefined to leave it as it is. */
  private change(edit: (all: T[]) => T[] | undefined): Promise<boolean> {
    return this.store.coordinator.withLock(this.key, async () => {
      const next = edit(await this.all());
      if (next === undefined) return false;
      if (next.length === 0) await this.records.delete(this.key);
      else await this.records.set(this.key, next, this.opts.ttlMs);
      return true;
    });
  }
}
