/**
 * Long polling: one getUpdates loop per bot token in this process. Each update is recorded (the inbox) before the
 * next call's offset confirms it to Telegram. A 409 means another process polls the same token or a webhook is
 * set: it is reported and retried with backoff, like any other failure. A watchdog aborts a getUpdates that has
 * outlived its timeout (a connection silently gone) so the loop starts a fresh one.
 */
import { GrammyError, type Api } from "grammy";
import type { Logger } from "../../infra/log.js";
import type { ChannelStatus } from "../../core/types.js";
import { ALLOWED_UPDATES, apiSignal, describeTelegramError, isTokenRefused, tokenRefused } from "./api.js";
import { backoffDelay, sleep, type Backoff } from "./backoff.js";

export interface PollerTiming {
  /** Waits after failures (also used while connecting). */
  backoff: Backoff;
  /** How long a getUpdates may run beyond its own timeout before the watchdog aborts it. */
  stallGraceMs: number;
}

export const DEFAULT_POLLER_TIMING: PollerTiming = { backoff: { baseMs: 1_000, maxMs: 60_000 }, stallGraceMs: 15_000 };

export interface PollerOptions {
  api: Api;
  /** Identifies the poll loop; one per bot id per process. */
  botId: string;
  log: Logger;
  timeoutSec: number;
  /** Records one update; the poller confirms it to Telegram only after this resolves. */
  receive: (update: unknown) => Promise<unknown>;
  onStatus: (status: ChannelStatus) => void;
  timing: PollerTiming;
}

/** Bots polled by this process: a second loop on one token would make both fail with 409. */
const pollingBots = new Set<string>();

const LONG_POLLING: ChannelStatus = { connected: true, detail: "long polling" };
const CONFLICT_DETAIL = "409 Conflict: another process is polling this bot token, or a webhook is set for it";

export class Poller {
  private readonly stopping = new AbortController();
  private request: { controller: AbortController; startedAt: number } | undefined;
  private offset: number | undefined;
  /** The offset the latest getUpdates carried: Telegram confirmed what lies before it when that call arrived. */
  private sentOffset: number | undefined;
  private loop: Promise<void> | undefined;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(private readonly opts: PollerOptions) {}

  start(): void {
    if (this.loop) throw new Error("The Telegram poller is already started");
    if (pollingBots.has(this.opts.botId)) {
      throw new Error(`Telegram bot ${this.opts.botId} is already polled by this process; a second loop would conflict`);
    }
    pollingBots.add(this.opts.botId);
    this.opts.onStatus(LONG_POLLING);
    this.loop = this.run();
    const stallMs = this.opts.timeoutSec * 1000 + this.opts.timing.stallGraceMs;
    this.watchdog = setInterval(() => this.abortIfStalled(stallMs), Math.min(this.opts.timing.stallGraceMs, 5_000));
    this.watchdog.unref();
  }

  /** Ends the loop, then confirms the updates already recorded so a restart does not fetch them again. */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping.abort();
    this.request?.controller.abort();
    clearInterval(this.watchdog);
    await this.loop;
    pollingBots.delete(this.opts.botId);
    // Only updates received after the last call went out still need confirming. Another call while the aborted
    // one may still be open at Telegram would end it with 409, which a replica taking over could be served.
    if (this.offset === undefined || this.offset === this.sentOffset) return;
    await this.opts.api
      .getUpdates({ offset: this.offset, limit: 1, timeout: 0 }, apiSignal(AbortSignal.timeout(5_000)))
      .catch((err: unknown) => this.opts.log.debug({ reason: describeTelegramError(err) }, "could not confirm the last Telegram updates"));
  }

  private async run(): Promise<void> {
    let failures = 0;
    // One controller serves every getUpdates until the watchdog aborts one: on Node 20 each new AbortSignal costs
    // V8 three hidden classes of its own, and a poll comes about once a message under load.
    let controller = new AbortController();
    while (!this.stopping.signal.aborted) {
      if (controller.signal.aborted) controller = new AbortController();
      this.request = { controller, startedAt: Date.now() };
      this.sentOffset = this.offset;
      try {
        const updates = await this.opts.api.getUpdates(
          // An offset not known yet is undefined, which the JSON body leaves out. (A literal starting with a
          // spread would make V8 a hidden class on every poll.)
          { offset: this.offset, timeout: this.opts.timeoutSec, limit: 100, allowed_updates: ALLOWED_UPDATES },
          apiSignal(controller.signal),
        );
        this.request = undefined;
        if (failures > 0) this.opts.log.info("Telegram polling recovered");
        failures = 0;
        this.opts.onStatus(LONG_POLLING);
        // Recorded together (the inbox writes a batch in one go), confirmed up to the first that failed.
        const received = await Promise.allSettled(updates.map((update) => this.opts.receive(update)));
        for (const [i, result] of received.entries()) {
          if (result.status === "rejected") throw result.reason;
          this.offset = updates[i]!.update_id + 1;
        }
      } catch (err) {
        this.request = undefined;
        if (this.stopping.signal.aborted) break;
        if (controller.signal.aborted) {
          this.opts.log.warn({ stalledSec: this.opts.timeoutSec }, "getUpdates stopped answering; the watchdog restarted it");
          continue;
        }
        failures += 1;
        const waitMs = this.failed(err, failures);
        if (waitMs === undefined) break;
        await sleep(waitMs, this.stopping.signal);
      }
    }
  }

  /** Reports a failed poll; answers how long to wait, or undefined when polling cannot go on. */
  private failed(err: unknown, failures: number): number | undefined {
    const backoff = backoffDelay(this.opts.timing.backoff, failures);
    const { log, onStatus } = this.opts;
    if (isTokenRefused(err)) {
      onStatus(tokenRefused(log));
      return undefined;
    }
    if (err instanceof GrammyError && err.error_code === 409) {
      log.warn({ retryInMs: backoff, attempt: failures }, `Telegram polling conflict: ${CONFLICT_DETAIL}; retrying`);
      onStatus({ connected: false, detail: CONFLICT_DETAIL });
      return backoff;
    }
    const retryAfter = err instanceof GrammyError ? err.parameters.retry_after : undefined;
    const waitMs = retryAfter !== undefined ? retryAfter * 1000 : backoff;
    // Recording an update (the store) can fail here too; either way the same updates are fetched again.
    log.warn({ retryInMs: waitMs, attempt: failures, reason: describeTelegramError(err) }, "Telegram polling failed; retrying");
    onStatus({ connected: false, detail: `polling failing: ${describeTelegramError(err)}` });
    return waitMs;
  }

  private abortIfStalled(stallMs: number): void {
    if (this.request && Date.now() - this.request.startedAt > stallMs) this.request.controller.abort();
  }
}
