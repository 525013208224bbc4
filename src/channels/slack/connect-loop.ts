/**
 * Connecting with patience: the first attempt decides whether the channel can run (refused credentials reject
 * start() with the fix); any other failure is reported in the status and tried again after a growing pause, as is
 * a connection lost later.
 */
import type { Logger } from "../../infra/log.js";
import { describeFailure } from "./api.js";

const FIRST_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 30_000;

export interface ConnectLoopOptions {
  attempt: () => Promise<void>;
  /** The fix, when the failure means the channel cannot run as configured. */
  fatal: (err: unknown) => string | undefined;
  log: Logger;
}

export class ConnectLoop {
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = true;
  private running: Promise<void> | undefined;
  /** Why the last attempt failed, while it has not succeeded since. */
  problem: string | undefined;

  constructor(private readonly opts: ConnectLoopOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.failures = 0;
    try {
      await this.run();
    } catch (err) {
      const fix = this.opts.fatal(err);
      if (fix !== undefined) {
        this.stopped = true;
        throw new Error(`${describeFailure(err)}: ${fix}`, { cause: err });
      }
      this.retry();
    }
  }

  /** Tries again after a pause (no-op while one is planned, or once stopped). */
  retry(): void {
    if (this.stopped || this.timer) return;
    const pause = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** this.failures);
    this.failures += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.run().catch((err: unknown) => {
        const fix = this.opts.fatal(err);
        if (fix !== undefined) this.opts.log.error({ reason: describeFailure(err) }, `Slack refused the credentials: ${fix}`);
        this.retry();
      });
    }, pause);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      await this.opts.attempt();
      this.failures = 0;
      this.problem = undefined;
    } catch (err) {
      this.problem = describeFailure(err);
      this.opts.log.warn({ reason: this.problem, attempt: this.failures + 1 }, "could not connect to Slack; trying again");
      throw err;
    }
  }
}
