/**
 * Namespaces as key prefixes over one shared Keyv. Keyv's own `namespace` option writes the name onto the
 * shared adapter, so several Keyv instances over one adapter would overwrite each other's namespace: hence
 * one Keyv without a namespace, and the prefix added here.
 *
 * Values are stored as plain JSON: a Date comes back as its ISO string, undefined object fields are dropped,
 * and a Map, Set or BigInt cannot be stored. Components keep their stored values plain JSON.
 */
import { Keyv, type KeyvStoreAdapter } from "keyv";
import type { Namespace, NamespaceEntry } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { requireDuration, requireKey } from "./checks.js";

/** A Keyv that stores plain JSON, adds no prefix of its own and throws backend errors instead of hiding them. */
export function jsonKeyv(store: KeyvStoreAdapter | Map<unknown, unknown>): Keyv {
  return new Keyv(store, {
    namespace: undefined,
    useKeyPrefix: false,
    throwOnErrors: true,
    serialize: (data) => JSON.stringify(data),
    deserialize: (text) => JSON.parse(text),
  });
}

export class KeyvNamespace<T> implements Namespace<T> {
  readonly #prefix: string;

  /** Keys are stored as `${keyPrefix}${name}:${key}`. */
  constructor(
    private readonly keyv: Keyv,
    private readonly guard: BackendGuard,
    readonly name: string,
    keyPrefix: string,
  ) {
    this.#prefix = `${keyPrefix}${name}:`;
  }

  async get(key: string): Promise<T | undefined> {
    const target = this.target(key);
    return this.guard.run("get", target, () => this.keyv.get<T>(this.#prefix + key));
  }

  async set(key: string, value: T, ttlMs?: number): Promise<void> {
    const target = this.target(key);
    if (value === undefined) throw new TypeError(`store set ${target}: the value is undefined (use delete)`);
    if (ttlMs !== undefined) requireDuration(ttlMs, "ttlMs", `store set ${target}`);
    await this.guard.run("set", target, () => this.keyv.set(this.#prefix + key, value, ttlMs));
  }

  async setMany(entries: ReadonlyArray<NamespaceEntry<T>>): Promise<void> {
    const rows = entries.map(({ key, value, ttlMs }) => {
      const target = this.target(key);
      if (value === undefined) throw new TypeError(`store set ${target}: the value is undefined (use delete)`);
      if (ttlMs !== undefined) requireDuration(ttlMs, "ttlMs", `store set ${target}`);
      return { key: this.#prefix + key, value, ...(ttlMs !== undefined ? { ttl: ttlMs } : {}) };
    });
    await this.guard.run("set many", `${this.name}:${entries[0]?.key ?? ""} (+${Math.max(0, entries.length - 1)})`, () => this.keyv.setMany(rows));
  }

  async delete(key: string): Promise<boolean> {
    const target = this.target(key);
    return this.guard.run("delete", target, () => this.keyv.delete(this.#prefix + key));
  }

  /** `name:key` for messages, after checking the key. */
  private target(key: string): string {
    const target = `${this.name}:${key}`;
    requireKey(key, `store ${target}`);
    return target;
  }
}
