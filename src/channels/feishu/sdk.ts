/** Small adapters between the Lark SDK and the gateway: its logger and its token cache. */
import * as lark from "@larksuiteoapi/node-sdk";
import type { Logger } from "../../infra/log.js";

type PinoLevel = "debug" | "info" | "warn";

/**
 * The SDK logs through this. It logs every failed request itself before rethrowing, and the gateway logs the
 * same failure where it handles it, so by default everything lands at debug; `errors` raises the SDK's errors
 * and warnings where nothing else reports them (the long connection's internals).
 */
export function sdkLogger(log: Logger, errors: PinoLevel = "debug"): lark.Logger {
  const at = (level: PinoLevel) => (...args: unknown[]) => log[level]({ sdk: "lark" }, describe(args));
  return { error: at(errors), warn: at(errors), info: at("debug"), debug: at("debug"), trace: at("debug") };
}

function describe(args: unknown[]): string {
  return args
    .flat(2)
    .map((arg) => (arg instanceof Error ? arg.message : typeof arg === "string" ? arg : safeJson(arg)))
    .join(" ");
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The SDK keeps the tenant access token in a cache and fetches a new one three minutes before it expires.
 * The default cache is process-wide and cannot be emptied; this one is per channel, so a token Feishu rejects
 * early (revoked, rotated) can be dropped and fetched again.
 */
type CacheKey = Parameters<lark.Cache["get"]>[0];

export class TokenCache implements lark.Cache {
  private readonly values = new Map<string, { value: unknown; expiresAt: number | undefined }>();

  async get(key: CacheKey, options?: { namespace?: string }): Promise<unknown> {
    const entry = this.values.get(keyOf(key, options));
    if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= Date.now())) return undefined;
    return entry.value;
  }

  async set(key: CacheKey, value: unknown, expiresAt?: number, options?: { namespace?: string }): Promise<boolean> {
    this.values.set(keyOf(key, options), { value, expiresAt });
    return true;
  }

  /** When the cached tenant token of `appId` stops being used, or null without one. */
  tenantTokenExpiry(appId: string): Date | null {
    const expiresAt = this.values.get(keyOf(lark.CTenantAccessToken, { namespace: appId }))?.expiresAt;
    return expiresAt === undefined ? null : new Date(expiresAt);
  }

  clear(): void {
    this.values.clear();
  }
}

function keyOf(key: CacheKey, options?: { namespace?: string }): string {
  return `${options?.namespace ?? ""}/${String(key)}`;
}
