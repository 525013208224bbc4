/**
 * Zombie-connection watchdog: a socket can stay open while nothing arrives any more (no events, no heartbeat
 * ACKs), and discord.js's own recovery can hang in a close handshake the dead peer never answers. When the
 * gateway has been silent for `silenceMs`, `onSilence` replaces the connection.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly silenceMs: number,
    /** Epoch ms of the latest sign of life, or undefined while there is no connection to watch. */
    private readonly lastActivity: () => number | undefined,
    private readonly onSilence: (silentForMs: number) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), Math.max(100, Math.min(this.silenceMs / 4, 5_000)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const last = this.lastActivity();
    if (last === undefined) return;
    const silentFor = Date.now() - last;
    if (silentFor >= this.silenceMs) this.onSilence(silentFor);
  }
}
