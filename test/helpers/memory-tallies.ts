/** Tallies in memory, for test stores built over a Map (no I/O, so they run the same under fake timers). */
import type { Tallies, TallyBound, TallyChange } from "../../src/infra/store/types.js";

interface Sums {
  fields: Map<string, number>;
  expires: number;
}

/** Every namespace's tallies in one Map, keyed by `<namespace>:<key>`. */
export class MemoryTallies {
  readonly #sums = new Map<string, Sums>();

  of(name: string): Tallies {
    const sums = (key: string): Map<string, number> | undefined => {
      const stored = this.#sums.get(`${name}:${key}`);
      return stored && stored.expires >= Date.now() ? stored.fields : undefined;
    };
    const boundSums = (bounds: readonly TallyBound[]) => bounds.map(({ key, field }) => sums(key)?.get(field) ?? 0);
    const addWithin = (changes: readonly TallyChange[], bounds: readonly TallyBound[]) => {
      if (boundSums(bounds).some((sum, i) => sum >= bounds[i]!.limit)) return Promise.resolve({ added: false, sums: boundSums(bounds) });
      for (const { key, amounts, ttlMs } of changes) {
        const fields = sums(key) ?? new Map<string, number>();
        for (const [field, amount] of Object.entries(amounts)) fields.set(field, (fields.get(field) ?? 0) + amount);
        this.#sums.set(`${name}:${key}`, { fields, expires: Date.now() + ttlMs });
      }
      return Promise.resolve({ added: true, sums: boundSums(bounds) });
    };
    return {
      add: async (changes) => void (await addWithin(changes, [])),
      addWithin,
      read: (keys) => Promise.resolve(keys.map((key) => Object.fromEntries(sums(key) ?? []))),
    };
  }
}
