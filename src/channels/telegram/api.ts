/** The grammY API client for one bot token, pointed at the configured Bot API server, and its error helpers. */
import { createHmac } from "node:crypto";
import { Api, GrammyError, HttpError } from "grammy";
import type { Logger } from "../../infra/log.js";
import type { ChannelStatus } from "../../core/types.js";
import { describeHttpError, retryTransformer, type RetryPolicy } from "./retry.js";

export const DEFAULT_API_ROOT = "https://api.telegram.org";

export interface ApiOptions {
  token: string;
  apiRoot: string | null;
  /** Without one, calls are not retried (doctor's single check). */
  retry?: { policy: RetryPolicy; log: Logger };
  timeoutSeconds?: number;
}

/** grammY refuses an apiRoot with a trailing slash; users paste one often. */
export function apiRootOf(configured: string | null): string {
  return (configured ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
}

export function createApi(opts: ApiOptions): Api {
  const api = new Api(opts.token, {
    apiRoot: apiRootOf(opts.apiRoot),
    ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
  });
  if (opts.retry) api.config.use(retryTransformer(opts.retry.policy, opts.retry.log));
  return api;
}

/** grammY types signals as those of its AbortController polyfill; a native one works the same at runtime. */
export function apiSignal(signal: AbortSignal): NonNullable<Parameters<Api["getUpdates"]>[1]> {
  return signal as unknown as NonNullable<Parameters<Api["getUpdates"]>[1]>;
}

/** A token is `<bot id>:<secret>`; the id names the bot's stored state before getMe has answered. */
export function botIdOf(token: string): string {
  return token.split(":")[0] ?? token;
}

/** The webhook secret when none is configured: stable for a token, so every replica computes the same one. */
export function derivedWebhookSecret(token: string): string {
  return createHmac("sha256", "switchboard telegram webhook").update(token).digest("base64url");
}

/**
 * The updates the bot asks for, by polling or webhook. Named explicitly: Telegram otherwise keeps whatever list an
 * earlier setup of the same token chose, which may leave out button presses.
 */
export const ALLOWED_UPDATES = ["message", "edited_message", "callback_query"] as const;

export function isTokenRefused(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 401;
}

/** Logs the refusal where it was met and answers the status to show; nothing retries a refused token. */
export function tokenRefused(log: Logger): ChannelStatus {
  log.error("Telegram refused the bot token (401); not retrying. Check TELEGRAM_BOT_TOKEN");
  return { connected: false, detail: "401: the bot token was refused" };
}

export function isParseEntitiesError(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /can't parse entities/i.test(err.description);
}

export function isNotModifiedError(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /message is not modified/i.test(err.description);
}

/** A message safe to log and show: network errors lose the URL (which holds the token). */
export function describeTelegramError(err: unknown): string {
  if (err instanceof HttpError) return describeHttpError(err);
  return err instanceof Error ? err.message : String(err);
}
