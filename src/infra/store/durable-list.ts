/**
 * A short list of records kept in the store under one key and changed only under the store's lock, so that
 * several replicas see one list. For work that must survive a crash until it is done: a channel's inbox of
 * messages not yet handled, the outbox of replies not yet sent. Each list stays short (entries leave when done).
 * Changes that arrive while one is being written are applied together in the next write (a busy inbox adds and
 * removes many entries at once), each caller still getting its own answer, in the order they were asked.
 */
import type { Namespace, NamespaceName, Store } from "./types.js";

type Edit<T> = (all: T[]) => T[] | undefined;

interface PendingChange<T> {
  edit: Edit<T>;
  resolve: (changed: boolean) => void;
  reject: (err: unknown) => void;
}

export class DurableList<T> {
  private readonly records: Namespace<T[]>;
  private readonly pending: Array<PendingChange<T>> = [];
  private writing = false;

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

  /** `edit` answers the new list, or undefined to leave it as it is; resolves with whether it changed the list. */
  private change(edit: Edit<T>): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ edit, resolve, reject });
      if (!this.writing) void this.writePending();
    });
  }

  private async writePending(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        const changed = await this.store.coordinator.withLock(this.key, () => this.apply(batch.map((c) => c.edit)));
        batch.forEach((c, i) => c.resolve(changed[i]!));
      } catch (err) {
        for (const c of batch) c.reject(err);
      }
    }
    this.writing = false;
  }

  /** Applies the edits in order to the stored list and writes it once; which edits changed it. */
  private async apply(edits: ReadonlyArray<Edit<T>>): Promise<boolean[]> {
    let list = await this.all();
    const changed = edits.map((edit) => {
      const next = edit(list);
      if (next === undefined) return false;
      list = next;
      return true;
    });
    if (!changed.includes(true)) return changed;
    if (list.length === 0) await this.records.delete(this.key);
    else await this.records.set(this.key, list, this.opts.ttlMs);
    return changed;
  }
}
