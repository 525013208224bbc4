/**
 * Holds one lease for this replica, or waits for it: a connection that a platform allows once per bot runs only
 * while the lease is held. The holder renews every `renewMs`; a standby asks every `retryMs`, so when a holder dies
 * another takes over within `ttlMs + retryMs`. The holder fences itself: when its lease is refused on renewal, or
 * not confirmed before it would expire (the store unreachable), `lost` runs before another replica can be granted
 * the key, so two replicas never hold the connection at once.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../log.js";
import type { Leases } from "../store/types.js";

export interface LeaseTiming {
  /** How long a grant lasts without renewal. */
  ttlMs: number;
  /** How often the holder renews. */
  renewMs: number;
  /** How often a replica without the lease asks for it. */
  retryMs: number;
}

/** What the lease guards: started when it is granted, stopped when it is lost or the keeper stops. */
export interface LeaseGuarded {
  /** Runs with the grant's fencing token; a rejection releases the lease and is passed on (start()) or logged. */
  acquired(token: number): Promise<void>;
  /** Runs when the grant ends, before the lease is released; `reason` says why. */
  lost(reason: string): Promise<void>;
}

export type LeaseState = { held: true; token: number } | { held: false; holder: string | null };

export interface LeaseKeeperOptions {
  leases: Leases;
  key: string;
  /** This replica's id. */
  holder: string;
  timing: LeaseTiming;
  log: Logger;
  guarded: LeaseGuarded;
}

export class LeaseKeeper {
  private grant: { token: number } | undefined;
  /** Who held the key when this replica last asked in vain. */
  private otherHolder: string | null = null;
  private expiry: NodeJS.Timeout | undefined;
  private losing: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  /** A store outage is logged when it starts, not at every attempt. */
  private failing = false;

  constructor(private readonly opts: LeaseKeeperOptions) {}

  get key(): string {
    return this.opts.key;
  }

  /** Asks once (running `acquired` if granted, and passing on its rejection), then keeps holding or asking. */
  async start(): Promise<void> {
    await this.attempt();
    this.loop = this.run();
  }

  /** Stops what the lease guards (if held), then releases the lease. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    const grant = this.grant;
    await this.lose("stopping");
    if (grant) {
      await this.opts.leases
        .releaseLease(this.opts.key, this.opts.holder, grant.token)
        .catch((err: unknown) => this.opts.log.warn({ err, lease: this.opts.key }, "lease release failed; it expires on its own"));
    }
  }

  state(): LeaseState {
    return this.grant ? { held: true, token: this.grant.token } : { held: false, holder: this.otherHolder };
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      await delay(this.grant ? this.opts.timing.renewMs : this.opts.timing.retryMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      if (this.grant) await this.renew(this.grant);
      // A connection that cannot start (refused credentials) will not start on the next try either.
      else if (!(await this.attempt().then(() => true, () => false))) break;
    }
  }

  private async attempt(): Promise<void> {
    await this.losing;
    const { leases, key, holder, timing, log } = this.opts;
    const asked = Date.now();
    let token: number | null;
    try {
      token = await leases.acquireLease(key, holder, timing.ttlMs);
      if (token === null) this.otherHolder = (await leases.leaseHolder(key))?.holder ?? null;
      this.recovered();
    } catch (err) {
      this.failed(err, "asking for the lease failed; retrying");
      return;
    }
    if (token === null) return;
    if (this.stopping.signal.aborted) {
      await leases.releaseLease(key, holder, token).catch(() => undefined);
      return;
    }
    this.grant = { token };
    this.armExpiry(asked);
    log.info({ lease: key, token }, "lease acquired: this replica holds the connection");
    try {
      await this.opts.guarded.acquired(token);
    } catch (err) {
      log.error({ err, lease: key }, "the connection did not start under the lease; releasing it");
      await this.lose("the connection did not start");
      await leases.releaseLease(key, holder, token).catch(() => undefined);
      throw err;
    }
  }

  private async renew(grant: { token: number }): Promise<void> {
    const { leases, key, holder, timing } = this.opts;
    const asked = Date.now();
    let renewed: boolean;
    try {
      renewed = await leases.renewLease(key, holder, grant.token, timing.ttlMs);
      this.recovered();
    } catch (err) {
      // The expiry timer stops the connection if no renewal gets through in time.
      this.failed(err, "renewing the lease failed; retrying");
      return;
    }
    if (this.grant !== grant) return;
    if (renewed) this.armExpiry(asked);
    else await this.lose("the lease was taken over");
  }

  /** The grant runs out `ttlMs` after it was asked for; stop a little before, so the next holder never overlaps. */
  private armExpiry(askedAt: number): void {
    clearTimeout(this.expiry);
    const { ttlMs } = this.opts.timing;
    const margin = Math.min(1_000, ttlMs / 4);
    this.expiry = setTimeout(() => void this.lose("the lease could not be renewed in time"), askedAt + ttlMs - margin - Date.now());
  }

  private lose(reason: string): Promise<void> {
    const grant = this.grant;
    if (!grant) return this.losing;
    this.grant = undefined;
    clearTimeout(this.expiry);
    if (reason !== "stopping") this.opts.log.warn({ lease: this.opts.key, token: grant.token, reason }, "lease lost: stopping the connection");
    this.losing = this.opts.guarded.lost(reason).catch((err: unknown) => this.opts.log.error({ err, lease: this.opts.key }, "stopping the connection failed"));
    return this.losing;
  }

  private failed(err: unknown, message: string): void {
    if (this.failing) return;
    this.failing = true;
    this.opts.log.warn({ err, lease: this.opts.key }, message);
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.opts.log.info({ lease: this.opts.key }, "the lease store answers again");
  }
}
