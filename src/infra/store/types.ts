/**
 * One store interface over two backends (SQLite for one process, Redis for several replicas).
 * Every component reads and writes through a namespace; the coordinator gives the few atomic
 * operations that must hold across processes.
 */

export const NAMESPACES = ["sessions", "dedup", "tasks", "receipts", "web", "workspace", "access", "meta", "memory", "actions", "voice", "agents", "mcp", "usage", "approvals", "languages"] as const;
export type NamespaceName = (typeof NAMESPACES)[number];

export interface Namespace<T> {
  get(key: string): Promise<T | undefined>;
  /** `ttlMs` omitted: kept until deleted. */
  set(key: string, value: T, ttlMs?: number): Promise<void>;
  /**
   * Stores several entries in one round trip (SQLite: one statement, so one commit, however many): for writers
   * that gather concurrent changes. Each entry as `set` would store it.
   */
  setMany(entries: ReadonlyArray<NamespaceEntry<T>>): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface NamespaceEntry<T> {
  key: string;
  value: T;
  /** Omitted: kept until deleted. */
  ttlMs?: number | undefined;
}

/**
 * Lists stored item by item, so appending costs the same however long the list is (SQLite: a row per item,
 * Redis: a list). Positions are what the caller says they are: a writer that crashed after `writeFrom` but before
 * recording the new length leaves items past that length, and the next `writeFrom` at that length replaces them.
 */
export interface ItemLists<T> {
  /**
   * Stores `items` at positions `from`, `from + 1`, ... of `key`'s list, dropping whatever was at or after `from`.
   * `fresh`: the caller made the key up just now (a random part), so nothing can be stored under it yet.
   */
  writeFrom(key: string, from: number, items: readonly T[], opts?: { fresh?: boolean }): Promise<void>;
  /** The items at positions `from` (default 0) up to `until` (exclusive), in order. */
  read(key: string, until: number, from?: number): Promise<T[]>;
  /**
   * Appends `item` to a log of which only the newest `keep` items are wanted, without reading it: older ones are
   * dropped now or later (at most `keep` more are kept). A log is written only by `push`, never by `writeFrom`.
   */
  push(key: string, item: T, keep: number): Promise<void>;
  /** The newest `count` items of a log written by `push`, oldest first. */
  tail(key: string, count: number): Promise<T[]>;
  delete(key: string): Promise<void>;
}

/**
 * Sets of entries by id, one set per key, each entry written and removed on its own, so a change costs the same
 * however many entries wait (SQLite: a row per entry; Redis: a hash field per entry). Every operation is atomic
 * without a lock, across replicas too. For work that must survive a crash until it is done (inboxes, the outbox).
 */
export interface EntrySets<T> {
  /** Stores the entry unless one with its id is there; false when it was. `ttlMs`: forgotten after that long. */
  add(key: string, id: string, entry: T, ttlMs?: number): Promise<boolean>;
  /** Replaces the entry with that id, keeping its place; false when there is none (it was removed meanwhile). */
  replace(key: string, id: string, entry: T): Promise<boolean>;
  remove(key: string, id: string): Promise<void>;
  /** The entries not expired, in the order they were added. */
  all(key: string): Promise<T[]>;
}

/**
 * Sums kept by key and field, changed only by adding to them (SQLite: a row per field; Redis: a hash per key), so
 * replicas adding at once lose nothing. Each call is one atomic change across replicas, in one round trip.
 */
export interface Tallies {
  /**
   * Adds every change's amounts, all together. SQLite keeps them in memory for up to a second and writes them with
   * the others (this process's reads include them at once; a stop writes them; a process killed outright loses
   * that second's); Redis adds them before it resolves.
   */
  add(changes: readonly TallyChange[]): Promise<void>;
  /**
   * Adds the changes only if every bound's field is still below its limit (checked and added in one step, so two
   * replicas cannot both pass the last check); each bound's sum, after the change when it was added.
   */
  addWithin(changes: readonly TallyChange[], bounds: readonly TallyBound[]): Promise<{ added: boolean; sums: number[] }>;
  /** Each key's fields and sums (an empty record for a key with none). */
  read(keys: readonly string[]): Promise<Array<Record<string, number>>>;
}

export interface TallyChange {
  key: string;
  amounts: Readonly<Record<string, number>>;
  /** The key's sums are forgotten this long after its last change. */
  ttlMs: number;
}

export interface TallyBound {
  key: string;
  field: string;
  limit: number;
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
  /**
   * Takes the next ticket of `line`: tickets of one line run one at a time, in the order they were taken, in every
   * process sharing the store. The ticket is kept alive (its lease renewed) until released; a ticket whose holder
   * died is skipped once its lease runs out.
   */
  takeTicket(line: string, opts?: { leaseMs?: number }): Promise<Ticket>;
  /**
   * Records `token` as the newest writer of `resource`; false (nothing recorded) when a newer token has written
   * already: its holder lost the ticket (its lease ran out) and must not write.
   */
  fence(resource: string, token: number): Promise<boolean>;
  /** Counting shared by processes; absent on the one-process backend, whose callers count in memory or in the store. */
  readonly shared?: SharedCounters;
}

/** Counters across replicas (Redis), each one atomic operation. */
export interface SharedCounters {
  /**
   * Counts one event of `key` at `now` (ms) in a window that opens at its first event and lasts `windowMs`; returns
   * the count, this event included. The caller's clock decides when a window ends, as on the one-process backend.
   */
  countInWindow(key: string, windowMs: number, now: number): Promise<number>;
  /** Events in `key`'s window open at `now`, without counting one; 0 when none is open. */
  windowCount(key: string, windowMs: number, now: number): Promise<number>;
  /**
   * Claims a slot of `pool`, which holds at most `max` distinct holders at once (a holder that has a slot may claim
   * again): a release function, or null when the pool is full. Kept alive until released; a dead process's slots
   * expire with their lease.
   */
  claimSlot(pool: string, holder: string, max: number, opts?: { leaseMs?: number }): Promise<(() => Promise<void>) | null>;
}

/** A place in a line (see Coordinator.takeTicket). */
export interface Ticket {
  /** Grows with each ticket of the line: the fencing token of the turn it runs. */
  readonly token: number;
  /** Waits until every earlier ticket is done (or its holder dead), runs `fn`, then releases the ticket. */
  run<T>(fn: (token: number) => Promise<T>, opts?: { waitMs?: number }): Promise<T>;
  /** Gives the place up without running; idempotent, and a no-op after run. */
  release(): Promise<void>;
}

/**
 * Messages between the processes sharing the store (Redis pub/sub); in one process, between its parts.
 * Delivery is at most once, in publishing order per publisher, only to subscribers present when it is published.
 */
export interface MessageBus {
  /** False for the in-process bus: there is nobody else to tell. */
  readonly crossesProcesses: boolean;
  publish(topic: string, message: string): Promise<void>;
  /** Resolves once subscribed; the returned function unsubscribes. */
  subscribe(topic: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
}

/**
 * Several changes made as one write: all or none of them land (SQLite: one transaction; Redis: one MULTI), in one
 * round trip, never deferred to a batch. For a record that must not be apart from another change (a message
 * recorded as answered and its inbox entry removed).
 */
export interface StoreWrite {
  /** Key-value records, each stored as `Namespace.set` stores it. */
  set?: ReadonlyArray<{ namespace: NamespaceName; key: string; value: unknown; ttlMs?: number }>;
  /** Entries taken out of entry sets, each as `EntrySets.remove` does. */
  remove?: ReadonlyArray<{ namespace: NamespaceName; key: string; id: string }>;
}

export type StoreBackend = "sqlite" | "redis";

export interface Store {
  readonly backend: StoreBackend;
  readonly coordinator: Coordinator;
  readonly bus: MessageBus;
  namespace<T>(name: NamespaceName): Namespace<T>;
  /** Item-by-item lists under the namespace's name (kept apart from its key-value entries). */
  lists<T>(name: NamespaceName): ItemLists<T>;
  /** Entry sets under the namespace's name (kept apart from its key-value entries and lists). */
  sets<T>(name: NamespaceName): EntrySets<T>;
  /** Sums under the namespace's name (kept apart from its other entries). */
  tallies(name: NamespaceName): Tallies;
  /** Makes the changes together, at once (see StoreWrite). */
  write(change: StoreWrite): Promise<void>;
  /** Round trip to the backend; throws when it does not answer. */
  ping(): Promise<void>;
  /** What the backend's own settings may lose of what it keeps (Redis without persistence, or evicting keys); [] when nothing. */
  durabilityWarnings(): Promise<string[]>;
  close(): Promise<void>;
}
