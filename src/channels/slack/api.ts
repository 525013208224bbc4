/**
 * The Web API client (@slack/web-api) as the channel uses it: on the configured API URL, told neither to retry
 * nor to wait out a 429 (failures are classified as SendError for the one outbound policy,
 * src/gateway/outbound.ts), logging into ours. Slack answers 200 with `{ok: false, error}` for refusals, 429 with
 * Retry-After for rate limits, and a 5xx when it is down.
 */
import { ErrorCode, LogLevel, WebClient, type Logger as SlackLogger } from "@slack/web-api";
import { networkFailure, SendError, type SendFailure } from "../../core/send-error.js";
import type { Logger } from "../../infra/log.js";

/** A Web API call answers within this, or counts as failed (uncertain for a send). */
const CALL_TIMEOUT_MS = 30_000;

export function webClient(token: string, apiUrl: string, log: Logger): WebClient {
  return new WebClient(token, { slackApiUrl: apiUrl, ...webClientOptions(log) });
}

/** Options shared by the bot's client and Socket Mode's. */
export function webClientOptions(log: Logger) {
  return { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: CALL_TIMEOUT_MS, logger: slackLogger(log) };
}

/**
 * The SDKs' logger interface over ours. Their debug lines are dropped: they quote whole payloads (people's
 * messages) and the Socket Mode URL with its connection ticket.
 */
export function slackLogger(log: Logger): SlackLogger {
  const text = (parts: unknown[]) => parts.map(String).join(" ");
  return {
    debug: () => {},
    info: (...msg: unknown[]) => log.debug(text(msg)),
    warn: (...msg: unknown[]) => log.warn(text(msg)),
    error: (...msg: unknown[]) => log.error(text(msg)),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  };
}

/** Slack's error string of a refused call (`invalid_auth`, `msg_too_long`, ...), if it was one. */
export function slackErrorOf(err: unknown): string | undefined {
  const coded = err as { code?: unknown; data?: { error?: unknown } } | null;
  return coded?.code === ErrorCode.PlatformError && typeof coded.data?.error === "string" ? coded.data.error : undefined;
}

/** Refusals saying Slack could not take the call now, and whether it may have done part of it. */
const TRANSIENT: Record<string, SendFailure> = {
  ratelimited: { kind: "rate_limited" },
  service_unavailable: { kind: "unavailable" },
  request_timeout: { kind: "unavailable" },
  internal_error: { kind: "uncertain" },
  fatal_error: { kind: "uncertain" },
};

export function sendFailureOf(err: unknown): SendFailure {
  const coded = err as { code?: unknown; retryAfter?: unknown; statusCode?: unknown; original?: unknown } | null;
  switch (coded?.code) {
    case ErrorCode.RateLimitedError:
      return typeof coded.retryAfter === "number" ? { kind: "rate_limited", retryAfterMs: coded.retryAfter * 1000 } : { kind: "rate_limited" };
    case ErrorCode.HTTPError:
      return typeof coded.statusCode === "number" && coded.statusCode >= 500 ? { kind: "unavailable" } : { kind: "rejected" };
    case ErrorCode.PlatformError:
      return TRANSIENT[slackErrorOf(err) ?? ""] ?? { kind: "rejected" };
    case ErrorCode.RequestError:
      return networkFailure(coded.original);
    default:
      return networkFailure(err);
  }
}

/** What failed, said without the SDK's error object: axios errors carry the request, with the token and the text. */
export function describeFailure(err: unknown): string {
  const coded = err as { code?: unknown; retryAfter?: unknown; statusCode?: unknown; original?: { code?: unknown; message?: unknown } } | null;
  switch (coded?.code) {
    case ErrorCode.PlatformError:
      return `Slack refused: ${slackErrorOf(err)}`;
    case ErrorCode.RateLimitedError:
      return `rate limited for ${String(coded.retryAfter)} s`;
    case ErrorCode.HTTPError:
      return `HTTP ${String(coded.statusCode)}`;
    case ErrorCode.RequestError:
      return `no answer (${String(coded.original?.code ?? coded.original?.message ?? "network error")})`;
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/** A SendError for a failed call, naming what was sent where; the Slack error string travels on (slackErrorOf). */
export function slackSendError(what: string, channel: string, err: unknown): SendError {
  const error = new SendError(`Slack ${what} to ${channel} failed: ${describeFailure(err)}`, sendFailureOf(err));
  const code = slackErrorOf(err);
  if (code !== undefined) Object.assign(error, { code: ErrorCode.PlatformError, data: { error: code } });
  return error;
}
