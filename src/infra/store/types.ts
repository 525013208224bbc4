/**
 * One store interface over two backends (SQLite for one process, Redis for several replicas).
 * Every component reads and writes through a namespace; the coordinator gives the few atomic
 * operations that must hold across processes.
 */

export const NAMESPACES = ["sessions", "dedup", "tasks", "receipts", "web", "workspace", "access", "meta", "memory"] as const;
export type NamespaceName = (typeof NAMESPACES)[number];

export interface Namespace<T> {
  get(key: string): Promise<T | undefined>;
  /** `ttlMs` omitted: kept until deleted. */
  set(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
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
  /** Round trip to the backend; throws when it does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
