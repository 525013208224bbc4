/** The Store both backends share: namespaces over one Keyv, a coordinator, ping and an idempotent close. */
import type { Keyv } from "keyv";
import type { Coordinator, ItemLists, MessageBus, Namespace, NamespaceName, Store, StoreBackend } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";
import { KeyvNamespace } from "./keyv-namespace.js";

export interface KeyvStoreParts {
  backend: StoreBackend;
  keyv: Keyv;
  guard: BackendGuard;
  keyPrefix: string;
  coordinator: Coordinator;
  bus: MessageBus;
  /** The backend's item lists of a namespace. */
  lists<T>(name: NamespaceName): ItemLists<T>;
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
  readonly #namespaces = new Map<NamespaceName, KeyvNamespace<unknown>>();
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
      ns = new KeyvNamespace<unknown>(this.#parts.keyv, this.#parts.guard, name, this.#parts.keyPrefix);
      this.#namespaces.set(name, ns);
    }
    return ns as Namespace<T>;
  }

  lists<T>(name: NamespaceName): ItemLists<T> {
    return this.#parts.lists<T>(name);
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
