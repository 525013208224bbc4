/** The store factory: SQLite (the default, one process) or Redis (several replicas), chosen by the URL. */
import type { Clock } from "../../core/clock.js";
import type { Logger } from "../log.js";
import type { Store } from "./types.js";
import { parseStoreUrl } from "./store-url.js";
import { openSqliteStore } from "./sqlite-store.js";

export type {
  Coordinator,
  ItemLists,
  LeaseGrant,
  Leases,
  MessageBus,
  Namespace,
  NamespaceName,
  Presence,
  SharedCounters,
  Store,
  StoreBackend,
  Ticket,
} from "./types.js";
export { NAMESPACES } from "./types.js";
export { LockTimeoutError, StoreError } from "./errors.js";

export const DEFAULT_KEY_PREFIX = "switchboard:";

export interface StoreOptions {
  /** null or `sqlite://[PATH]`: SQLite (default `<dataDir>/switchboard.sqlite`); `redis://` or `rediss://`: Redis. */
  url: string | null;
  dataDir: string;
  log: Logger;
  /** Prepended to every key, so several gateways (or test runs) can share one Redis database. */
  keyPrefix?: string;
  /** Times SQLite's tallies (their expiry, when the additions gathered in memory are written); the real clock by default. */
  clock?: Clock;
}

export async function createStore(opts: StoreOptions): Promise<Store> {
  const target = parseStoreUrl(opts.url, opts.dataDir);
  const keyPrefix = opts.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const log = opts.log.child({ component: "store" });
  if (target.kind === "sqlite") return openSqliteStore(target.file, keyPrefix, log, opts.clock);
  // The Redis client (several hundred files) is loaded only when a Redis URL is configured.
  const { connectRedisStore } = await import("./redis-store.js");
  return connectRedisStore(target, keyPrefix, log);
}
