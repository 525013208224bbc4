/**
 * The channel kit's reconnecting for long connections (a Stream, a gateway): exponential backoff with jitter from
 * `baseMs` up to `maxMs`, reset once a connection is established, and nothing scheduled after stop.
 */
import type { Logger } from "../infra/log.js";

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1_000, maxMs: 60_000 };

export class Reconnector {
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly backoff: Backoff,
    private readonly log: Logger,
    /** The log line of a lost connection, e.g. "QQ gateway connection lost; reconnecting". */
    private readonly message: string,
  ) {}

  /** Calls `connect` after the next wait; a failure of it schedules the one after. */
  schedule(err: unknown, connect: () => Promise<void>): void {
    const { baseMs, maxMs } = this.backoff;
    const delay = Math.min(maxMs, baseMs * 2 ** this.attempt) * (0.5 + Math.random() / 2);
    this.attempt += 1;
    this.log.warn({ err, attempt: this.attempt, delayMs: Math.round(delay) }, this.message);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      connect().catch((e: unknown) => this.schedule(e, connect));
    }, delay);
  }

  /** A connection is established: the next loss waits from the start again. */
  reset(): void {
    this.attempt = 0;
  }

  cancel(): void {
    clearTimeout(this.timer);
  }
}
