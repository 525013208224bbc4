/** Argument checks shared by namespaces and coordinators, and the lock defaults. */

/**
 * A lock's lease is renewed every third of it while its holder runs, so it only decides how long a lock left by a
 * dead replica blocks the others: short, so a takeover is not held up behind a killed holder's inbox or list lock.
 */
export const DEFAULT_LEASE_MS = 10_000;
export const DEFAULT_WAIT_MS = 30_000;

export interface LockOptions {
  leaseMs: number;
  waitMs: number;
}

export function requireKey(key: string, context: string): void {
  if (typeof key !== "string" || key.length === 0) {
    throw new TypeError(`${context}: the key must be a non-empty string, got ${JSON.stringify(key)}`);
  }
}

/** An entry set's key and, for an operation on one entry, its id. */
export function requireSetEntry(name: string, key: string, id?: string): void {
  requireKey(key, `store set ${name}:${key}`);
  if (id !== undefined) requireKey(id, `store set ${name}:${key} entry id`);
}

/** A duration in whole ms (Redis PX takes integers), positive, or zero where `allowZero` ("do not wait"). */
export function requireDuration(ms: number, name: string, context: string, allowZero = false): void {
  const ok = Number.isInteger(ms) && (allowZero ? ms >= 0 : ms > 0);
  if (!ok) {
    const expected = allowZero ? "zero or a positive" : "a positive";
    throw new RangeError(`${context}: ${name} must be ${expected} whole number of milliseconds, got ${String(ms)}`);
  }
}

/** A count of items, positive and whole. */
export function requireCount(count: number, name: string, context: string): void {
  if (!Number.isInteger(count) || count <= 0) throw new RangeError(`${context}: ${name} must be a positive whole number, got ${String(count)}`);
}

export function resolveLockOptions(key: string, opts: Partial<LockOptions> | undefined): LockOptions {
  const leaseMs = opts?.leaseMs ?? DEFAULT_LEASE_MS;
  const waitMs = opts?.waitMs ?? DEFAULT_WAIT_MS;
  const context = `withLock "${key}"`;
  requireKey(key, context);
  requireDuration(leaseMs, "leaseMs", context);
  requireDuration(waitMs, "waitMs", context, true);
  return { leaseMs, waitMs };
}

/** A lease's key and holder: the holder's name is stored after the token's "|", so any text but the empty one. */
export function checkLease(key: string, holder: string, context: string): void {
  requireKey(key, context);
  requireKey(holder, `${context} "${key}" holder`);
}

/** A tally change's keys, whole TTLs and finite amounts, and its bounds' keys and limits. */
export function requireTallies(
  name: string,
  changes: ReadonlyArray<{ key: string; amounts: Readonly<Record<string, number>>; ttlMs: number }>,
  bounds: ReadonlyArray<{ key: string; field: string; limit: number }>,
): void {
  for (const { key, amounts, ttlMs } of changes) {
    requireKey(key, `store tally ${name}`);
    requireDuration(ttlMs, "ttlMs", `store tally ${name}:${key}`);
    for (const [field, amount] of Object.entries(amounts)) {
      if (!Number.isFinite(amount)) throw new RangeError(`store tally ${name}:${key} field ${field}: the amount must be a finite number, got ${String(amount)}`);
    }
  }
  for (const { key, field, limit } of bounds) {
    requireKey(key, `store tally ${name} bound`);
    if (Number.isNaN(limit)) throw new RangeError(`store tally ${name}:${key} bound on ${field}: the limit is not a number`);
  }
}
