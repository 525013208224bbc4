/** The message bus of one process (the SQLite backend): publishing calls this process's subscribers. */
import type { MessageBus } from "./types.js";

type Listener = (message: string) => void;

export class LocalBus implements MessageBus {
  readonly crossesProcesses = false;
  readonly #topics = new Map<string, Set<Listener>>();

  /** Delivered after the publisher's turn, as a message from another process would be. */
  async publish(topic: string, message: string): Promise<void> {
    for (const listener of [...(this.#topics.get(topic) ?? [])]) queueMicrotask(() => listener(message));
  }

  async subscribe(topic: string, onMessage: Listener): Promise<() => Promise<void>> {
    const listener: Listener = (message) => onMessage(message);
    let listeners = this.#topics.get(topic);
    if (!listeners) this.#topics.set(topic, (listeners = new Set()));
    listeners.add(listener);
    return async () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#topics.get(topic) === listeners) this.#topics.delete(topic);
    };
  }
}
