/**
 * What the gateway knows of each model entry between calls: whether it is cooling down after a failure (and
 * until when, on the Clock port), whether its provider refused the credentials, and how its last call ended. The
 * failover (model-chain.ts) reads it to skip an entry at once; /readyz, /status, doctor and the console show it.
 * Also here: which failures move a call on to the next entry (failoverKind).
 */
import { APICallError } from "ai";
import type { Clock } from "../core/clock.js";
import type { Speech } from "../core/i18n.js";
import { ENGLISH } from "../infra/i18n/index.js";
import { DEFAULT_ENTRY } from "../infra/config/model-entries.js";

/** Why a failed call may move on: the provider is busy or down, or the prompt is too long for this model. */
export type FailoverKind = "unavailable" | "context" | "refused";

export interface ModelState {
  name: string;
  provider: string;
  model: string;
  /** ready: will be called; cooling: skipped until `until`; refused: the provider refused the credentials. */
  state: "ready" | "cooling" | "refused";
  /** ISO time the cooldown ends. */
  until?: string;
  /** The last failure, as one line (status and reason), and when. */
  lastError?: string;
  lastErrorAt?: string;
  lastOkAt?: string;
}

interface Entry {
  provider: string;
  model: string;
}

interface Record {
  coolingUntil: number;
  refused: boolean;
  lastError?: string;
  lastErrorAt?: number;
  lastOkAt?: number;
}

/** Longest cooldown a Retry-After header can ask for; a larger value is taken as this. */
const MAX_RETRY_AFTER_MS = 3_600_000;

export class ModelHealth {
  readonly #records = new Map<string, Record>();

  constructor(
    readonly clock: Clock,
    private readonly cooldownMs: number,
    private readonly entries: ReadonlyMap<string, Entry>,
  ) {}

  /** ms left of the entry's cooldown; 0 when it is ready. */
  coolingFor(name: string): number {
    return Math.max(0, (this.#records.get(name)?.coolingUntil ?? 0) - this.clock.now());
  }

  succeeded(name: string): void {
    const record = this.#record(name);
    record.refused = false;
    record.coolingUntil = 0;
    record.lastOkAt = this.clock.now();
  }

  /** Notes a failed call; an unavailable entry cools down for the provider's Retry-After, or llm.cooldownSeconds. */
  failed(name: string, kind: FailoverKind | null, err: unknown): void {
    const record = this.#record(name);
    const now = this.clock.now();
    record.lastError = failureLine(err, kind);
    record.lastErrorAt = now;
    if (kind === "refused") record.refused = true;
    if (kind === "unavailable") record.coolingUntil = now + (retryAfterMs(err, now) ?? this.cooldownMs);
  }

  states(): ModelState[] {
    const now = this.clock.now();
    return [...this.entries].map(([name, { provider, model }]) => {
      const record = this.#records.get(name);
      const cooling = record !== undefined && record.coolingUntil > now;
      const state: ModelState["state"] = record?.refused ? "refused" : cooling ? "cooling" : "ready";
      const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());
      return {
        name,
        provider,
        model,
        state,
        ...(cooling ? { until: iso(record.coolingUntil) } : {}),
        ...(record?.lastError !== undefined ? { lastError: record.lastError, lastErrorAt: iso(record.lastErrorAt) } : {}),
        ...(record?.lastOkAt !== undefined ? { lastOkAt: iso(record.lastOkAt) } : {}),
      };
    });
  }

  #record(name: string): Record {
    let record = this.#records.get(name);
    if (!record) this.#records.set(name, (record = { coolingUntil: 0, refused: false }));
    return record;
  }
}

/**
 * "backup: deepseek-chat (openai-compatible): cooling down until 2026-...Z (HTTP 503)": one entry's state. Given a
 * reader (an owner's /status), in their language with the times in `zone`; else in English with ISO times.
 */
export function modelStateText(state: ModelState, reader?: { speech: Speech; zone: string }): string {
  const { t } = reader?.speech ?? ENGLISH;
  const at = (iso: string): string => (reader ? reader.speech.time(Date.parse(iso), reader.zone) : iso);
  const head = `${state.name}: ${state.model} (${state.provider})`;
  const why = state.lastError ? ` (${state.lastError})` : "";
  if (state.state === "refused") {
    const key = state.name === DEFAULT_ENTRY ? "llm.apiKey (LLM_API_KEY)" : `llm.models.${state.name}.apiKey`;
    return t("models.refused", { head, why, key });
  }
  if (state.state === "cooling") return t("models.cooling", { head, until: at(state.until ?? ""), why });
  const failedLast = state.lastErrorAt !== undefined && state.lastErrorAt > (state.lastOkAt ?? "");
  return t("models.ready", {
    head,
    lastAnswer: state.lastOkAt ? t("models.lastAnswer", { at: at(state.lastOkAt) }) : "",
    lastFailure: failedLast ? t("models.lastFailure", { at: at(state.lastErrorAt!), why }) : "",
  });
}

/** What the provider said about a context too long for the model, in the words providers use. */
const CONTEXT_TOO_LONG = /context[ _-]?(length|window)|maximum context|context (is )?too long|prompt is too long|too many (input )?tokens|input is too long|reduce the length/i;

/** Connection failures below the AI SDK (a stream cut off, a refused or reset connection). */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * Whether a failed call may move on to another entry, and why: 429, 5xx, a timeout or a connection failure
 * (unavailable), a prompt too long for the model (context), credentials refused (refused: shown, never moved on).
 * null for anything else (a bad request, a malformed answer, a cancelled turn): the call fails as it is.
 */
export function failoverKind(err: unknown): FailoverKind | null {
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status === 401 || status === 403) return "refused";
    if (status === undefined || status === 408 || status === 429 || status >= 500) return "unavailable";
    return CONTEXT_TOO_LONG.test(`${err.message} ${err.responseBody ?? ""}`) ? "context" : null;
  }
  if (err instanceof Error && err.name === "TimeoutError") return "unavailable";
  return isConnectionFailure(err) ? "unavailable" : null;
}

function isConnectionFailure(err: unknown): boolean {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (cause instanceof TypeError && (cause.message === "fetch failed" || cause.message === "terminated")) return true;
  }
  return false;
}

/** The wait a 429 or 503 asked for (Retry-After in seconds or as a date, or retry-after-ms), or undefined. */
export function retryAfterMs(err: unknown, now: number): number | undefined {
  if (!APICallError.isInstance(err) || !err.responseHeaders) return undefined;
  const headers = err.responseHeaders;
  const ms = Number(headers["retry-after-ms"]);
  const raw = headers["retry-after"];
  let wait = Number.isFinite(ms) && headers["retry-after-ms"] !== undefined ? ms : undefined;
  if (wait === undefined && raw !== undefined) wait = /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) * 1000 : Date.parse(raw) - now;
  return wait === undefined || !Number.isFinite(wait) || wait < 0 ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS);
}

/**
 * "HTTP 503", "timed out", ...: what /status shows of a failure. Not the provider's message: some quote part of
 * the key they refused, and none of the request belongs there.
 */
function failureLine(err: unknown, kind: FailoverKind | null): string {
  if (APICallError.isInstance(err) && err.statusCode !== undefined) return `HTTP ${err.statusCode}${kind === "context" ? " (context too long)" : ""}`;
  if (err instanceof Error && err.name === "TimeoutError") return "timed out";
  if (kind === "unavailable") return "could not connect";
  return err instanceof Error ? err.name : "failed";
}
