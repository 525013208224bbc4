/** The lease and presence half of a coordinator, forwarded to the backend's implementation of it. */
import type { LeaseGrant, Leases, Presence } from "./types.js";

export abstract class ForwardingLeases implements Leases, Presence {
  constructor(private readonly leases: Leases & Presence) {}

  acquireLease(key: string, holder: string, ttlMs: number): Promise<number | null> {
    return this.leases.acquireLease(key, holder, ttlMs);
  }

  renewLease(key: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    return this.leases.renewLease(key, holder, token, ttlMs);
  }

  releaseLease(key: string, holder: string, token: number): Promise<void> {
    return this.leases.releaseLease(key, holder, token);
  }

  leaseHolder(key: string): Promise<LeaseGrant | null> {
    return this.leases.leaseHolder(key);
  }

  announce(group: string, member: string, info: string, ttlMs: number): Promise<void> {
    return this.leases.announce(group, member, info, ttlMs);
  }

  withdraw(group: string, member: string): Promise<void> {
    return this.leases.withdraw(group, member);
  }

  present(group: string): Promise<Array<{ member: string; info: string }>> {
    return this.leases.present(group);
  }
}
