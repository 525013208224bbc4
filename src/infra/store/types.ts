/**
 * One store interface over two backends (SQLite for one process, Redis for several replicas).
 * Every component reads and writes through a namespace; the coordinator gives the few atomic
 * operations that must hold across processes.
 */

export const NAMESPACES = ["sessions", "dedup", "tasks", "receipts", "web", "workspace", "access", "meta", "memory", "actions"] as const;
export type NamespaceName = (typeof NAMESPACES)[number];

export interface Namespace<T> {
  get(key: string): Promise<T | undefined>;
  /** `ttlMs` omitted: kept until deleted. */
  set(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/**
 * Lists stored item by item, so appending costs the same however long the list is (SQLite: a row per item,
 * Redis: a list). Positions are what the caller says they are: a writer that crashed after `writeFrom` but before
 * recording the new length leaves items past that length, and the next `writeFrom` at that length replaces them.
 */
export interface ItemLists<T> {
  /** Stores `items` at positions `from`, `from + 1`, ... of `key`'s list, dropping whatever was at or after `from`. */
  writeFrom(key: string, from: number, items: readonly T[]): Promise<void>;
  /** The items at positions `from` (default 0) up to `until` (exclusive), in order. */
  read(key: string, until: number, from?: number): Promise<T[]>;
  delete(key: string): Promise<void>;
}

export interface Coordinator {
  /** Atomically records `key` unless present; true when this call recorded it. Persisted, expires after ttlMs. */
  setIfAbsent(key: string, ttlMs: number): Promise<boolean>;
  /** Runs `fn` while holding an exclusive lock on `key` (across processes on Redis). */
  withLock<T>(key: string, fn: () => Promise<T>, opts?: { leaseMs?: number; waitMs?: number }): Promise<T>;
}

export type StoreBackend = "sqlite" | "redis";

export interface Store {
  readonly backend: StoreBackend;
  readonly coordinator: Coordinator;
  namespace<T>(name: NamespaceName): Namespace<T>;
  /** Item-by-item lists under the namespace's name (kept apart from its key-value entries). */
  lists<T>(name: NamespaceName): ItemLists<T>;
  /** Round trip to the backend; throws when it does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
