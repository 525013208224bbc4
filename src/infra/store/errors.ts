/** Errors the store throws: each names the operation and the key it concerns, never a password. */
import { redactSecrets, redactText } from "../config/secrets.js";

/** A backend call that failed, or a call on a closed store. `target` is `namespace:key`, a lock key or the store. */
export class StoreError extends Error {
  override readonly name = "StoreError";

  constructor(
    readonly operation: string,
    readonly target: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`store ${operation} ${target} failed: ${detail}`, options);
  }

  /** Wraps a backend failure; `secrets` (the store URL's password) are removed from the message and the cause. */
  static wrap(operation: string, target: string, error: unknown, secrets: readonly string[]): StoreError {
    const detail = redactText(error instanceof Error ? error.message : String(error), secrets);
    return new StoreError(operation, target, detail, { cause: redactSecrets(error, secrets) });
  }
}

/** withLock gave up waiting for another holder of the same key. */
export class LockTimeoutError extends Error {
  override readonly name = "LockTimeoutError";

  constructor(
    readonly key: string,
    readonly waitMs: number,
  ) {
    super(`lock "${key}" was not acquired within ${waitMs} ms`);
  }
}
