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

/** A lease's holder and its fencing token: each grant of a key gets a higher token than every grant before it. */
export interface LeaseGrant {
  holder: string;
  token: number;
}

/**
 * One holder at a time per key, for as long as it renews before `ttlMs` runs out. The fencing token tells grants
 * apart: a holder that lost its lease (it renewed too late) cannot renew or release the next holder's grant.
 */
export interface Leases {
  /** Grants `key` to `holder` unless another holder has it; its token, or null. A holder asking again keeps its grant. */
  acquireLease(key: string, holder: string, ttlMs: number): Promise<number | null>;
  /** Extends the grant by `ttlMs` from now; false when it is no longer this holder's (expired or taken over). */
  renewLease(key: string, holder: string, token: number, ttlMs: number): Promise<boolean>;
  /** Ends the grant if it is still this one; a later holder's grant is left alone. */
  releaseLease(key: string, holder: string, token: number): Promise<void>;
  /** The current grant, or null when nobody holds `key`. */
  leaseHolder(key: string): Promise<LeaseGrant | null>;
}

/** Members of a group that announce themselves, each until its announcement's TTL runs out (heartbeats). */
export interface Presence {
  /** Records `member` in `group` with `info` for `ttlMs`; announcing again replaces both. */
  announce(group: string, member: string, info: string, ttlMs: number): Promise<void>;
  withdraw(group: string, member: string): Promise<void>;
  /** The members whose announcement has not expired, by name. */
  present(group: string): Promise<Array<{ member: string; info: string }>>;
}

export interface Coordinator extends Leases, Presence {
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
