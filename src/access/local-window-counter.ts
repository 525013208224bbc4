/**
 * WindowCounter's counting (a window opens at a subject's first event and lasts `windowMs`) in this process's
 * memory, for the one-process backend: the message rate limits would otherwise read and write a store record for
 * every message. Nobody else can count on SQLite (the CLI sends no messages); a restart opens fresh windows.
 * Bounded: windows are kept in the order they opened, so the expired ones are dropped from the front as events
 * come, and at most `max` are kept (past that, the oldest open window is forgotten: its subject starts afresh).
 */
export class LocalWindowCounter {
  /** Open windows by subject, in the order they opened (a new window moves its subject to the end). */
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly max = 100_000,
  ) {}

  /** Counts one event for `subject`; returns how many its current window holds, this one included. */
  async hit(subject: string): Promise<number> {
    const now = this.now();
    this.dropExpired(now);
    const open = this.windows.get(subject);
    if (open && now - open.start < this.windowMs) {
      open.count += 1;
      return open.count;
    }
    this.windows.delete(subject);
    if (this.windows.size >= this.max) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(subject, { start: now, count: 1 });
    return 1;
  }

  /** Events in the subject's current window; 0 when none is open. */
  async count(subject: string): Promise<number> {
    const open = this.windows.get(subject);
    return open && this.now() - open.start < this.windowMs ? open.count : 0;
  }

  /** Windows kept (open, or expired and not yet dropped). */
  get size(): number {
    return this.windows.size;
  }

  private dropExpired(now: number): void {
    for (const [subject, window] of this.windows) {
      if (now - window.start < this.windowMs) return;
      this.windows.delete(subject);
    }
  }
}
