/**
 * Every call to the backend goes through here: it refuses calls once the store is closed (a closed redis
 * client would otherwise reconnect on demand) and turns failures into StoreErrors that say what was asked.
 */
import { StoreError } from "./errors.js";

export class BackendGuard {
  #closed = false;

  /** `secrets`: strings to keep out of error messages (the store URL's password). */
  constructor(private readonly secrets: readonly string[]) {}

  get closed(): boolean {
    return this.#closed;
  }

  markClosed(): void {
    this.#closed = true;
  }

  async run<T>(operation: string, target: string, call: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreError(operation, target, "the store is closed");
    try {
      return await call();
    } catch (error) {
      throw this.wrap(operation, target, error);
    }
  }

  wrap(operation: string, target: string, error: unknown): StoreError {
    return StoreError.wrap(operation, target, error, this.secrets);
  }
}
