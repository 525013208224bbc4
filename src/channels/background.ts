/**
 * The channel kit's bookkeeping of work a channel starts and does not wait for (a turn handed over after the
 * platform got its acknowledgment, a replay at start): stop() waits for it, and a failure is logged once, here.
 */
import type { Logger } from "../infra/log.js";

export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly log: Logger,
    /** Names the work in the log line of a failure, e.g. "WeCom". */
    private readonly platform: string,
  ) {}

  track(work: Promise<unknown>): void {
    const task: Promise<void> = work
      .then(() => undefined)
      .catch((err: unknown) => this.log.error({ err }, `${this.platform} background work failed`))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Resolves once everything tracked so far has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
