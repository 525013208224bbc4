/** Finding the configured secrets and keeping them out of everything the gateway prints or sends. */
import type { Config } from "./schema.js";
import { SECRET_PATHS } from "./schema.js";
import { mcpSecrets } from "../mcp/config.js";

export const REDACTED = "[REDACTED]";

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The secret values in force: configured tokens and keys, and the password of a store URL. */
export function collectSecrets(config: Config): string[] {
  const values: string[] = [];
  for (const path of SECRET_PATHS) {
    const v = getPath(config, path);
    if (typeof v === "string" && v.length >= 4) values.push(v);
  }
  const storePassword = passwordOf(config.store.url);
  if (storePassword) values.push(storePassword);
  values.push(...mcpSecrets(config.mcp).filter((v) => v.length >= 4));
  // Longest first, so a secret containing another is replaced whole.
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

function passwordOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password.length >= 4 ? password : undefined;
  } catch {
    return undefined;
  }
}

export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** Deep copy of `value` with every secret replaced; Errors keep their name, message and stack. */
export function redactSecrets(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0 || depth > 8) return value;
  if (typeof value === "string") return redactText(value, secrets);
  if (value instanceof Error) {
    const copy = new Error(redactText(value.message, secrets));
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : redactText(value.stack, secrets);
    for (const [k, v] of Object.entries(value)) (copy as unknown as Record<string, unknown>)[k] = redactSecrets(v, secrets, depth + 1);
    if (value.cause !== undefined) copy.cause = redactSecrets(value.cause, secrets, depth + 1);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, secrets, depth + 1));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, secrets, depth + 1)]));
  }
  return value;
}
