/** Item lists in memory, for test stores built over a Map (no I/O, so they run the same under fake timers). */
import type { ItemLists } from "../../src/infra/store/types.js";

/** One set of lists per namespace name, as a store keeps them. */
export class MemoryLists {
  readonly #byName = new Map<string, MemoryItemLists<unknown>>();

  of<T>(name: string): ItemLists<T> {
    let lists = this.#byName.get(name);
    if (!lists) this.#byName.set(name, (lists = new MemoryItemLists()));
    return lists as ItemLists<T>;
  }
}

class MemoryItemLists<T> implements ItemLists<T> {
  readonly #lists = new Map<string, string[]>();

  writeFrom(key: string, from: number, items: readonly T[]): Promise<void> {
    const kept = (this.#lists.get(key) ?? []).slice(0, from);
    this.#lists.set(key, [...kept, ...items.map((item) => JSON.stringify(item))]);
    return Promise.resolve();
  }

  read(key: string, until: number, from = 0): Promise<T[]> {
    return Promise.resolve((this.#lists.get(key) ?? []).slice(from, until).map((value) => JSON.parse(value) as T));
  }

  push(key: string, item: T, keep: number): Promise<void> {
    this.#lists.set(key, [...(this.#lists.get(key) ?? []), JSON.stringify(item)].slice(-keep));
    return Promise.resolve();
  }

  tail(key: string, count: number): Promise<T[]> {
    return Promise.resolve(count <= 0 ? [] : (this.#lists.get(key) ?? []).slice(-count).map((value) => JSON.parse(value) as T));
  }

  delete(key: string): Promise<void> {
    this.#lists.delete(key);
    return Promise.resolve();
  }
}
