/** The lease keeper: one holder at a time, takeover after a stop, and self-fencing when renewal fails. */
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { LeaseKeeper, type LeaseTiming } from "../../../src/infra/cluster/lease.js";
import { LocalLeases } from "../../../src/infra/store/local-leases.js";
import type { Leases } from "../../../src/infra/store/types.js";
import { eventually } from "../../helpers/wait.js";

const log = pino({ level: "silent" });
const TIMING: LeaseTiming = { ttlMs: 400, renewMs: 100, retryMs: 50 };
const keepers: LeaseKeeper[] = [];
afterEach(async () => {
  await Promise.all(keepers.splice(0).map((k) => k.stop()));
});

/** A keeper recording what the lease guards: when it started (with its token) and when it stopped (and why). */
function keeper(leases: Leases, holder: string, opts: { failStart?: boolean } = {}) {
  const events: Array<{ kind: "acquired"; token: number; at: number } | { kind: "lost"; reason: string; at: number }> = [];
  const k = new LeaseKeeper({
    leases,
    key: "telegram:1",
    holder,
    timing: TIMING,
    log,
    guarded: {
      acquired: async (token) => {
        if (opts.failStart) throw new Error("token refused");
        events.push({ kind: "acquired", token, at: Date.now() });
      },
      lost: async (reason) => {
        events.push({ kind: "lost", reason, at: Date.now() });
      },
    },
  });
  keepers.push(k);
  return { k, events };
}

describe("LeaseKeeper", () => {
  it("one holder; the standby takes over with a higher token once the holder stops", async () => {
    const leases = new LocalLeases();
    const a = keeper(leases, "replica-a");
    const b = keeper(leases, "replica-b");
    await a.k.start();
    await b.k.start();
    expect(a.k.state()).toMatchObject({ held: true });
    expect(b.k.state()).toEqual({ held: false, holder: "replica-a" });
    await a.k.stop();
    expect(a.events.at(-1)).toMatchObject({ kind: "lost", reason: "stopping" });
    await eventually(() => b.k.state().held, "the standby to take over", 2_000);
    const [first] = a.events;
    const [second] = b.events;
    expect(first?.kind === "acquired" && second?.kind === "acquired" && second.token > first.token).toBe(true);
  });

  it("stops what it guards before the lease would expire when renewals fail (the store unreachable)", async () => {
    const inner = new LocalLeases();
    let outage = false;
    const down = () => Promise.reject(new Error("redis down"));
    const flaky: Leases = {
      acquireLease: (...args) => (outage ? down() : inner.acquireLease(...args)),
      renewLease: (...args) => (outage ? down() : inner.renewLease(...args)),
      releaseLease: (...args) => (outage ? down() : inner.releaseLease(...args)),
      leaseHolder: (...args) => (outage ? down() : inner.leaseHolder(...args)),
    };
    const a = keeper(flaky, "replica-a");
    await a.k.start();
    const outageAt = Date.now();
    outage = true;
    await eventually(() => a.events.some((e) => e.kind === "lost"), "the holder to fence itself", 2_000);
    const lost = a.events.find((e) => e.kind === "lost")!;
    expect(lost).toMatchObject({ reason: "the lease could not be renewed in time" });
    // The grant confirmed last was asked for at or before the outage began, so it ends by outageAt + ttl.
    expect(lost.at).toBeLessThan(outageAt + TIMING.ttlMs);
    expect(a.k.state().held).toBe(false);
  });

  it("stops what it guards when a renewal is refused (the lease was taken over)", async () => {
    const inner = new LocalLeases();
    const refusing: Leases = { ...bind(inner), renewLease: async () => false };
    const a = keeper(refusing, "replica-a");
    await a.k.start();
    await eventually(() => a.events.some((e) => e.kind === "lost"), "the holder to stop", 2_000);
    expect(a.events.find((e) => e.kind === "lost")).toMatchObject({ reason: "the lease was taken over" });
  });

  it("a connection that cannot start makes start() reject and leaves the lease free", async () => {
    const leases = new LocalLeases();
    const a = keeper(leases, "replica-a", { failStart: true });
    await expect(a.k.start()).rejects.toThrow("token refused");
    expect(await leases.leaseHolder("telegram:1")).toBeNull();
  });
});

function bind(leases: LocalLeases): Leases {
  return {
    acquireLease: (...args) => leases.acquireLease(...args),
    renewLease: (...args) => leases.renewLease(...args),
    releaseLease: (...args) => leases.releaseLease(...args),
    leaseHolder: (...args) => leases.leaseHolder(...args),
  };
}
