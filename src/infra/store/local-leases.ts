/**
 * Leases and presence for one process (the SQLite backend): nothing else can hold a lease or be present, so both
 * live in memory. Tokens still grow with each grant, so a channel restarted in this process gets a new one.
 */
import type { LeaseGrant, Leases, Presence } from "./types.js";
import { checkLease, requireDuration, requireKey } from "./checks.js";

interface Expiring<T> {
  value: T;
  until: number;
}

export class LocalLeases implements Leases, Presence {
  readonly #grants = new Map<string, Expiring<LeaseGrant>>();
  readonly #tokens = new Map<string, number>();
  readonly #groups = new Map<string, Map<string, Expiring<string>>>();

  async acquireLease(key: string, holder: string, ttlMs: number): Promise<number | null> {
    checkLease(key, holder, "acquireLease");
    requireDuration(ttlMs, "ttlMs", `acquireLease "${key}"`);
    const current = this.current(key);
    if (current && current.holder !== holder) return null;
    const token = current?.token ?? (this.#tokens.get(key) ?? 0) + 1;
    this.#tokens.set(key, token);
    this.#grants.set(key, { value: { holder, token }, until: Date.now() + ttlMs });
    return token;
  }

  async renewLease(key: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    checkLease(key, holder, "renewLease");
    requireDuration(ttlMs, "ttlMs", `renewLease "${key}"`);
    const current = this.current(key);
    if (current?.holder !== holder || current.token !== token) return false;
    this.#grants.set(key, { value: current, until: Date.now() + ttlMs });
    return true;
  }

  async releaseLease(key: string, holder: string, token: number): Promise<void> {
    checkLease(key, holder, "releaseLease");
    const current = this.current(key);
    if (current?.holder === holder && current.token === token) this.#grants.delete(key);
  }

  async leaseHolder(key: string): Promise<LeaseGrant | null> {
    requireKey(key, "leaseHolder");
    return this.current(key) ?? null;
  }

  async announce(group: string, member: string, info: string, ttlMs: number): Promise<void> {
    requireKey(group, "announce");
    requireKey(member, `announce in "${group}"`);
    requireDuration(ttlMs, "ttlMs", `announce "${member}" in "${group}"`);
    let members = this.#groups.get(group);
    if (!members) this.#groups.set(group, (members = new Map()));
    members.set(member, { value: info, until: Date.now() + ttlMs });
  }

  async withdraw(group: string, member: string): Promise<void> {
    requireKey(group, "withdraw");
    this.#groups.get(group)?.delete(member);
  }

  async present(group: string): Promise<Array<{ member: string; info: string }>> {
    requireKey(group, "present");
    const members = this.#groups.get(group);
    if (!members) return [];
    const now = Date.now();
    for (const [member, entry] of members) if (entry.until <= now) members.delete(member);
    return [...members].map(([member, entry]) => ({ member, info: entry.value })).sort((a, b) => a.member.localeCompare(b.member));
  }

  private current(key: string): LeaseGrant | undefined {
    const grant = this.#grants.get(key);
    if (!grant) return undefined;
    if (grant.until > Date.now()) return grant.value;
    this.#grants.delete(key);
    return undefined;
  }
}
