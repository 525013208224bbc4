/** A StoreWrite checked and put in the form both backends store: rows as the namespaces write them. */
import type { NamespaceName, StoreWrite } from "./types.js";
import { requireDuration, requireKey, requireSetEntry } from "./checks.js";

/** A key-value row as every namespace stores it: `{"value": ..., "expires": ms}` (Keyv's format). */
export interface StoredRow {
  value: unknown;
  expires?: number;
}

/** The row of `value` for `target` (`name:key`, for messages), after checking it. */
export function storedRow(target: string, value: unknown, ttlMs: number | undefined): StoredRow {
  if (value === undefined) throw new TypeError(`store set ${target}: the value is undefined (use delete)`);
  if (ttlMs !== undefined) requireDuration(ttlMs, "ttlMs", `store set ${target}`);
  return ttlMs === undefined ? { value } : { value, expires: Date.now() + ttlMs };
}

export interface PreparedWrite {
  sets: Array<{ namespace: NamespaceName; key: string; text: string; ttlMs: number | undefined }>;
  removals: Array<{ namespace: NamespaceName; key: string; id: string }>;
  /** What the write touches, for error messages. */
  target: string;
}

export function prepareWrite(change: StoreWrite): PreparedWrite {
  const sets = (change.set ?? []).map(({ namespace, key, value, ttlMs }) => {
    const target = `${namespace}:${key}`;
    requireKey(key, `store ${target}`);
    return { namespace, key, text: JSON.stringify(storedRow(target, value, ttlMs)), ttlMs };
  });
  const removals = (change.remove ?? []).map((entry) => {
    requireSetEntry(entry.namespace, entry.key, entry.id);
    return entry;
  });
  const targets = [...sets.map((s) => `${s.namespace}:${s.key}`), ...removals.map((r) => `${r.namespace}:${r.key}/${r.id}`)];
  return { sets, removals, target: targets.join(", ") };
}
