/** The Store both backends share: their namespaces (made once each), a coordinator, ping and an idempotent close. */
import type { Coordinator, EntrySets, ItemLists, MessageBus, Namespace, NamespaceName, Store, StoreBackend, StoreWrite, Tallies } from "./types.js";
import { prepareWrite, type PreparedWrite } from "./store-write.js";
import type { BackendGuard } from "./backend-guard.js";

export interface KeyvStoreParts {
  backend: StoreBackend;
  guard: BackendGuard;
  coordinator: Coordinator;
  bus: MessageBus;
  /** The backend's key-value namespace `name` (Redis: over Keyv; SQLite: over its own statements). */
  namespace(name: NamespaceName): Namespace<unknown>;
  /** The backend's item lists of a namespace. */
  lists<T>(name: NamespaceName): ItemLists<T>;
  /** The backend's entry sets of a namespace. */
  sets<T>(name: NamespaceName): EntrySets<T>;
  /** The backend's sums of a namespace. */
  tallies(name: NamespaceName): Tallies;
  /** The backend's one write of several changes, all or nothing. */
  write(change: PreparedWrite): Promise<void>;
  /** A round trip to the backend. */
  roundTrip(): Promise<unknown>;
  /** Closes the connection; called once. */
  shutdown(): Promise<void>;
}

export class KeyvStore implements Store {
  readonly backend: StoreBackend;
  readonly coordinator: Coordinator;
  readonly bus: MessageBus;
  readonly #parts: KeyvStoreParts;
  readonly #namespaces = new Map<NamespaceName, Namespace<unknown>>();
  #closing: Promise<void> | undefined;

  constructor(parts: KeyvStoreParts) {
    this.backend = parts.backend;
    this.coordinator = parts.coordinator;
    this.bus = parts.bus;
    this.#parts = parts;
  }

  namespace<T>(name: NamespaceName): Namespace<T> {
    let ns = this.#namespaces.get(name);
    if (!ns) {
      ns = this.#parts.namespace(name);
      this.#namespaces.set(name, ns);
    }
    return ns as Namespace<T>;
  }

  lists<T>(name: NamespaceName): ItemLists<T> {
    return this.#parts.lists<T>(name);
  }

  sets<T>(name: NamespaceName): EntrySets<T> {
    return this.#parts.sets<T>(name);
  }

  tallies(name: NamespaceName): Tallies {
    return this.#parts.tallies(name);
  }

  async write(change: StoreWrite): Promise<void> {
    const prepared = prepareWrite(change);
    if (prepared.target === "") return;
    await this.#parts.guard.run("write", prepared.target, () => this.#parts.write(prepared));
  }

  async ping(): Promise<void> {
    await this.#parts.guard.run("ping", this.backend, this.#parts.roundTrip);
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#parts.guard.markClosed();
      this.#closing = this.#parts.shutdown().catch((err: unknown) => {
        throw this.#parts.guard.wrap("close", this.backend, err);
      });
    }
    return this.#closing;
  }
}
