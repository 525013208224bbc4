/** Entry sets in memory, for test stores built over a Map (no I/O, so they run the same under fake timers). */
import type { EntrySets } from "../../src/infra/store/types.js";

/** One group of sets per namespace name, as a store keeps them. */
export class MemorySets {
  readonly #byName = new Map<string, MemoryEntrySets<unknown>>();

  of<T>(name: string): EntrySets<T> {
    let sets = this.#byName.get(name);
    if (!sets) this.#byName.set(name, (sets = new MemoryEntrySets()));
    return sets as EntrySets<T>;
  }
}

interface Stored {
  json: string;
  expires: number | undefined;
}

const live = (entry: Stored | undefined): entry is Stored => entry !== undefined && (entry.expires === undefined || entry.expires >= Date.now());

/** A Map per set keeps insertion order; an expired entry re-added moves to the end. */
class MemoryEntrySets<T> implements EntrySets<T> {
  readonly #sets = new Map<string, Map<string, Stored>>();

  add(key: string, id: string, entry: T, ttlMs?: number): Promise<boolean> {
    const set = this.#set(key);
    if (live(set.get(id))) return Promise.resolve(false);
    set.delete(id);
    set.set(id, { json: JSON.stringify(entry), expires: ttlMs === undefined ? undefined : Date.now() + ttlMs });
    return Promise.resolve(true);
  }

  replace(key: string, id: string, entry: T): Promise<boolean> {
    const stored = this.#set(key).get(id);
    if (!live(stored)) return Promise.resolve(false);
    stored.json = JSON.stringify(entry);
    return Promise.resolve(true);
  }

  remove(key: string, id: string): Promise<void> {
    this.#set(key).delete(id);
    return Promise.resolve();
  }

  all(key: string): Promise<T[]> {
    return Promise.resolve([...this.#set(key).values()].filter(live).map((stored) => JSON.parse(stored.json) as T));
  }

  #set(key: string): Map<string, Stored> {
    let set = this.#sets.get(key);
    if (!set) this.#sets.set(key, (set = new Map()));
    return set;
  }
}
