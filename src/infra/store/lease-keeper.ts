/** Renews a lease every third of its length until stopped; shared by Redis locks, tickets and slots. */
import type { Logger } from "../log.js";

export interface LeaseKeeper {
  /** Stops renewing; waits for a renewal in flight. */
  stop(): Promise<void>;
}

/**
 * `renew` resolves true while the lease is still ours. A renewal that throws (an outage) is logged and retried at
 * the next tick; one that finds the lease gone is logged once and ends the renewals.
 */
export function keepLeaseAlive(what: Record<string, unknown>, leaseMs: number, renew: () => Promise<boolean>, log: Logger): LeaseKeeper {
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    timer = setTimeout(() => {
      inFlight = renew().then(
        (held) => {
          if (stopped) return;
          if (held) schedule();
          else log.warn(what, "lease expired while its holder was still running");
        },
        (err: unknown) => {
          log.warn({ ...what, err }, "lease renewal failed; retrying");
          if (!stopped) schedule();
        },
      );
    }, leaseMs / 3);
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
