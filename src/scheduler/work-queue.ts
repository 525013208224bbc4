/** Runs queued jobs, at most `limit` at a time, in the order they were queued. Jobs must not reject. */
export type Job = () => Promise<void>;

export class WorkQueue {
  private readonly waiting: Job[] = [];
  private active = 0;
  private idleWaiters: Array<() => void> = [];

  /** `onDrained` may hand one more job when the queue runs empty (it runs before idle() resolves). */
  constructor(
    private readonly limit: number,
    private readonly onDrained: () => Job | null = () => null,
  ) {}

  get pending(): number {
    return this.waiting.length + this.active;
  }

  push(job: Job): void {
    this.waiting.push(job);
    this.pump();
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.active < this.limit && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.active += 1;
      void job().finally(() => {
        this.active -= 1;
        if (this.pending === 0) {
          const last = this.onDrained();
          if (last) this.waiting.push(last);
        }
        this.pump();
        if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }
}
