/**
 * A namespace whose reads are served from a small in-process cache, for records read on every message but rarely
 * written (a user's time zone, a session's equipped skills, a person's profile). Absent records are cached too.
 *
 * Staleness: a write through any cached namespace of this process drops the entry before and after it reaches
 * the store, and publishes the key on the store's bus, so the other instances of this process and the other
 * replicas (Redis) drop it as well, within the bus's delay. The bus delivers at most once and does not reach a
 * writer that is no gateway (the CLI on SQLite): such a change is seen when the entry expires, after `ttlMs` at
 * most. While the bus cannot be subscribed to, nothing is cached.
 *
 * Cached values are shared by every reader: callers must not change what `get` answers.
 */
import type { MessageBus, Namespace, NamespaceEntry } from "./types.js";

export interface CacheOptions {
  /** Bus topic of the changes; one per kind of record, the same in every process. */
  topic: string;
  /** Longest time an entry is served without reading the store: the staleness bound for writers off the bus. */
  ttlMs: number;
  /** Entries kept; the oldest goes first. */
  max: number;
}

export class CachedNamespace<T> implements Namespace<T> {
  /** Stored value by key (undefined: none stored), with when the entry expires. */
  private readonly cache = new Map<string, { value: T | undefined; until: number }>();
  private subscribed: Promise<boolean> | null = null;
  /** Counts changes seen, so a read that raced one does not cache what it read before it. */
  private changes = 0;

  constructor(
    private readonly ns: Namespace<T>,
    private readonly bus: MessageBus,
    private readonly opts: CacheOptions,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<T | undefined> {
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.value;
    const listening = await this.listen();
    const changesBefore = this.changes;
    const value = await this.ns.get(key);
    if (listening && changesBefore === this.changes) {
      const now = this.now();
      this.cache.delete(key);
      this.dropExpired(now);
      if (this.cache.size >= this.opts.max) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, { value, until: now + this.opts.ttlMs });
    }
    return value;
  }

  /** Entries kept: read within the TTL, at most `max`. */
  get size(): number {
    return this.cache.size;
  }

  async set(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.changing([key], () => this.ns.set(key, value, ttlMs));
  }

  async setMany(entries: ReadonlyArray<NamespaceEntry<T>>): Promise<void> {
    await this.changing(
      entries.map((e) => e.key),
      () => this.ns.setMany(entries),
    );
  }

  async delete(key: string): Promise<boolean> {
    return this.changing([key], () => this.ns.delete(key));
  }

  /** Drops the entries around the write (a read that overlaps it may have read the old value) and tells the others. */
  private async changing<R>(keys: readonly string[], write: () => Promise<R>): Promise<R> {
    for (const key of keys) this.forget(key);
    try {
      return await write();
    } finally {
      // Also after a failed write: it may have reached the store. A lost notice is bounded by the others' TTL,
      // so it does not fail a write that happened.
      for (const key of keys) this.forget(key);
      await Promise.all(keys.map((key) => this.bus.publish(this.opts.topic, key).catch(() => undefined)));
    }
  }

  /**
   * Entries are added at the end with the same TTL, so the map runs from the first to expire to the last: expired
   * ones leave from the front, and the cache holds the keys read within `ttlMs`, not the last `max` ever read.
   */
  private dropExpired(now: number): void {
    for (const [key, entry] of this.cache) {
      if (entry.until > now) return;
      this.cache.delete(key);
    }
  }

  private forget(key: string): void {
    this.changes += 1;
    this.cache.delete(key);
  }

  private listen(): Promise<boolean> {
    this.subscribed ??= this.bus.subscribe(this.opts.topic, (key) => this.forget(key)).then(
      () => true,
      () => false,
    );
    return this.subscribed;
  }
}
