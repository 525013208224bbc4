/**
 * Work a channel starts and does not wait for (handing a message over after its webhook was answered, a read
 * receipt, a replay), kept so that stop() can wait until all of it is done. A failure is logged here, once.
 */
import type { Logger } from "../infra/log.js";

export class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly log: Logger,
    /** What failed, for the log: "WhatsApp background work". */
    private readonly what: string,
  ) {}

  track(work: Promise<unknown>): void {
    const tracked = work.catch((err: unknown) => this.log.error({ err }, `${this.what} failed`)).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  /** Resolves when nothing is running, including work started while waiting. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
