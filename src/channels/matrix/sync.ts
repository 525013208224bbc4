/**
 * The /sync long poll. The `next_batch` token is stored after each batch's messages are recorded (the channel's
 * inbox), so a restart resumes where the last run stopped: nothing replayed, nothing lost. On the very first start
 * there is no token; the initial sync's history is not answered, only its invitations are looked at.
 * Rate limits wait `retry_after_ms`; other failures back off; a refused token stops the loop, saying so.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../../infra/log.js";
import type { Namespace, Store } from "../../infra/store/types.js";
import { MatrixError, type MatrixApi } from "./api.js";
import type { Timeline } from "./timeline.js";

/** Only what the channel reads: room timelines and invitations, not presence or account data. */
const FILTER = JSON.stringify({
  presence: { types: [] },
  account_data: { types: [] },
  room: { timeline: { limit: 100 }, state: { lazy_load_members: true }, ephemeral: { types: [] }, account_data: { types: [] } },
});

export interface SyncResponse {
  next_batch: string;
  rooms?: {
    join?: Record<string, { timeline?: Timeline; state?: { events?: unknown[] }; summary?: Record<string, unknown> }>;
    invite?: Record<string, { invite_state?: { events?: unknown[] } }>;
    leave?: Record<string, unknown>;
  };
}

export interface SyncTiming {
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_SYNC_TIMING: SyncTiming = { backoffBaseMs: 1_000, backoffMaxMs: 60_000 };

export interface SyncOptions {
  api: MatrixApi;
  store: Store;
  /** One token per account: `matrix-sync:<user id>`. */
  key: string;
  timeoutMs: number;
  log: Logger;
  timing: SyncTiming;
  /**
   * Records what a batch holds; the token is stored only after it resolves, then the function it answers hands the
   * recorded messages over. `since`: the token the batch continues from; undefined for the very first sync.
   */
  take(batch: SyncResponse, since: string | undefined): Promise<() => void>;
  onStatus(connected: boolean, detail: string): void;
}

export class SyncLoop {
  private readonly tokens: Namespace<string>;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly opts: SyncOptions) {
    this.tokens = opts.store.namespace<string>("meta");
  }

  start(): void {
    this.running = this.loop().catch((err: unknown) => {
      if (!this.stopping.signal.aborted) this.opts.log.error({ err }, "the Matrix sync loop ended");
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { api, key, log, timeoutMs } = this.opts;
    const signal = this.stopping.signal;
    let since = await this.tokens.get(key);
    for (let failures = 0; !signal.aborted; ) {
      try {
        const initial = since === undefined;
        const batch = await api.call<SyncResponse>({
          method: "GET",
          path: "/_matrix/client/v3/sync",
          query: { filter: FILTER, timeout: initial ? 0 : timeoutMs, since },
          signal,
          timeoutMs: timeoutMs + 30_000,
        });
        if (typeof batch.next_batch !== "string") throw new Error("the sync answer has no next_batch");
        const handOver = await this.opts.take(batch, since);
        await this.tokens.set(key, batch.next_batch);
        handOver();
        since = batch.next_batch;
        failures = 0;
        this.opts.onStatus(true, "syncing");
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof MatrixError && err.errcode === "M_UNKNOWN_TOKEN") {
          log.error({ err }, "the homeserver refused the Matrix access token; not receiving");
          this.opts.onStatus(false, "the access token was refused (MATRIX_ACCESS_TOKEN)");
          return;
        }
        failures += 1;
        const waitMs = err instanceof MatrixError && err.retryAfterMs !== undefined ? err.retryAfterMs : backoff(this.opts.timing, failures);
        log.warn({ err, attempt: failures, retryInMs: waitMs }, "Matrix sync failed; retrying");
        this.opts.onStatus(false, `sync failing: ${(err as Error).message}`);
        await delay(waitMs, undefined, { signal }).catch(() => {});
      }
    }
  }
}

function backoff(timing: SyncTiming, failures: number): number {
  return Math.min(timing.backoffMaxMs, timing.backoffBaseMs * 2 ** (failures - 1));
}
