/**
 * The channel kit's live reply: a throttle in front of a platform's way of showing a growing reply (a Presenter:
 * a message edited in place, a Telegram draft, a Feishu streaming card). The turn may report its text a hundred
 * times a second; the platform sees at most one call per interval, the first one only after a short delay (a quick
 * answer goes out whole, without a preview), and then only when enough new text came or the text changed otherwise.
 */
import { z } from "zod";
import { systemClock, type Clock } from "../core/clock.js";
import type { LiveReply, SentMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";

/** The `streaming` setting of a channel section. */
export const streamingSetting = (fallback: "off" | "preview" | "draft") => z.enum(["off", "preview", "draft"]).default(fallback);

/** A platform's way of showing the reply as it grows. */
export interface Presenter {
  /** Shows the text so far; throws RateLimitedError to be called again later, anything else ends the preview. */
  show(text: string): Promise<void>;
  /** Replaces what was shown with the final text, sent as sendText would send it. */
  finish(text: string): Promise<SentMessage[]>;
  /** Takes back what was shown. */
  cancel(): Promise<void>;
  /**
   * For an ephemeral preview (a Telegram draft): how long what was shown lasts before it must be shown again, also
   * when the text did not change (a long tool run); undefined when it stays.
   */
  refreshAfterMs?(): number | undefined;
}

/** The platform asked to slow down; the preview waits, the text keeps growing meanwhile. */
export class RateLimitedError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`rate limited; retry after ${retryAfterMs} ms`);
  }
}

export interface ThrottleOptions {
  /** Least time between two calls to the platform, counted from the end of the previous one. */
  intervalMs: number;
  /** Wait after the first text before showing anything. */
  firstDelayMs: number;
  /** New characters needed before the text is shown again (a changed text is shown regardless). */
  minChars: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { intervalMs: 1_000, firstDelayMs: 500, minChars: 24 };

export class ThrottledLiveReply implements LiveReply {
  private latest = "";
  private shown = "";
  private firstAt: number | undefined;
  private lastCallEnd = Number.NEGATIVE_INFINITY;
  private blockedUntil = 0;
  /** Cancels the pending call to the platform; undefined when none is pending. */
  private timer: (() => void) | undefined;
  private refreshTimer: (() => void) | undefined;
  /** What was shown is about to expire: show it again even though it did not change. */
  private expiring = false;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private failed = false;

  constructor(
    private readonly presenter: Presenter,
    private readonly log: Logger,
    private readonly throttle: ThrottleOptions = DEFAULT_THROTTLE,
    private readonly clock: Clock = systemClock,
  ) {}

  update(text: string): void {
    if (this.closed || this.failed) return;
    this.latest = text;
    if (text.trim() === "") return;
    this.firstAt ??= this.clock.now() + this.throttle.firstDelayMs;
    this.schedule();
  }

  async finish(text: string): Promise<SentMessage[]> {
    await this.close();
    return this.presenter.finish(text);
  }

  async cancel(): Promise<void> {
    await this.close();
    await this.presenter.cancel();
  }

  private async close(): Promise<void> {
    this.closed = true;
    this.timer?.();
    this.refreshTimer?.();
    this.timer = undefined;
    await this.running;
  }

  private schedule(): void {
    if (this.timer || this.closed || !this.worthShowing()) return;
    const at = Math.max(this.firstAt ?? 0, this.lastCallEnd + this.throttle.intervalMs, this.blockedUntil);
    this.timer = this.clock.setTimer(at - this.clock.now(), () => {
      this.timer = undefined;
      this.running = this.running.then(() => this.flush());
    });
  }

  private worthShowing(): boolean {
    const { latest, shown } = this;
    if (latest.trim() === "") return false;
    if (this.expiring) return true;
    if (latest === shown) return false;
    return !latest.startsWith(shown) || latest.length - shown.length >= this.throttle.minChars;
  }

  private async flush(): Promise<void> {
    if (this.closed || !this.worthShowing()) return;
    const text = this.latest;
    try {
      await this.presenter.show(text);
      this.shown = text;
      this.expiring = false;
      this.keepFresh();
    } catch (err) {
      if (err instanceof RateLimitedError) {
        this.blockedUntil = this.clock.now() + err.retryAfterMs;
      } else {
        // The final reply still goes out; only the preview stops growing.
        this.failed = true;
        this.log.warn({ err }, "the live preview failed; the reply follows when it is finished");
      }
    } finally {
      this.lastCallEnd = this.clock.now();
    }
    this.schedule();
  }

  private keepFresh(): void {
    this.refreshTimer?.();
    this.refreshTimer = undefined;
    const ms = this.presenter.refreshAfterMs?.();
    if (ms === undefined) return;
    this.refreshTimer = this.clock.setTimer(ms, () => {
      this.expiring = true;
      this.schedule();
    });
  }
}
