/**
 * This gateway among the replicas sharing its store: which channels receive under a lease (on Redis, for the
 * connections a platform allows once per bot), its heartbeat, and what /readyz, the console and doctor say about
 * them. On SQLite there is one process: channels run as they are and nothing is announced.
 */
import type { Config } from "./config.js";
import { channelRunner, type ChannelRunner } from "./channels/leased.js";
import type { Channel, ChannelName } from "./core/types.js";
import { liveReplicas, ReplicaRegistry, type ReplicaInfo } from "./infra/cluster/registry.js";
import { newReplicaId } from "./infra/cluster/replica-id.js";
import type { ComponentStatus, HttpServer } from "./infra/http/server.js";
import type { Logger } from "./infra/log.js";
import type { Store } from "./infra/store/types.js";

export interface ReplicaView {
  /** This replica's id. */
  id: string;
  /** The connection leases this replica holds, e.g. "telegram:123456". */
  leases: string[];
  /** Every replica with a current heartbeat (this one alone on SQLite). */
  live: ReplicaInfo[];
}

export class Replicas {
  /** What the gateway starts and stops per channel. */
  readonly runners: ReadonlyMap<ChannelName, ChannelRunner>;
  private readonly registry: ReplicaRegistry | null;
  private readonly startedAt = new Date().toISOString();
  private readonly log: Logger;

  constructor(
    readonly id: string,
    opts: { store: Store; settings: Config["replica"]; log: Logger; channels: ReadonlyMap<ChannelName, Channel> },
  ) {
    const { store, settings, log } = opts;
    this.log = log;
    const shared = store.backend === "redis";
    const lease = shared
      ? { leases: store.coordinator, replicaId: id, timing: { ttlMs: settings.leaseMs, renewMs: settings.renewMs, retryMs: settings.retryMs }, log }
      : null;
    this.runners = new Map([...opts.channels].map(([name, channel]) => [name, channelRunner(channel, lease)]));
    this.registry = shared
      ? new ReplicaRegistry({ presence: store.coordinator, id, heartbeatMs: settings.heartbeatMs, log, leases: () => this.leases() })
      : null;
  }

  /** This replica over the store, its channels' runners, and their lines in /readyz. */
  static create(deps: { config: Config; store: Store; log: Logger; channels: ReadonlyMap<ChannelName, Channel>; http: HttpServer }): Replicas {
    const { config, store, log, channels, http } = deps;
    const replicas = new Replicas(newReplicaId(config.replica.id ?? undefined), { store, settings: config.replica, log, channels });
    for (const [name, runner] of replicas.runners) {
      http.addReadinessCheck(`channel:${name}`, () => {
        const { connected, detail } = runner.status();
        return { ok: connected, ...(detail ? { detail } : {}) };
      });
    }
    http.addReadinessCheck("replica", () => replicas.readiness(), { gates: false });
    return replicas;
  }

  async start(): Promise<void> {
    await this.registry?.start();
  }

  /** Stops every channel's runner; one that fails is logged and the others still stop. */
  async stopRunners(): Promise<void> {
    for (const [name, runner] of this.runners) {
      await runner.stop().catch((err: unknown) => this.log.error({ err, channel: name }, "channel did not stop cleanly"));
    }
  }

  async stop(): Promise<void> {
    await this.registry?.stop();
  }

  leases(): string[] {
    return [...this.runners.values()].flatMap((runner) => runner.heldLease?.() ?? []);
  }

  async view(): Promise<ReplicaView> {
    const leases = this.leases();
    const live = this.registry ? await this.registry.live() : [{ id: this.id, startedAt: this.startedAt, leases }];
    return { id: this.id, leases, live };
  }

  /** The /readyz line: never gates readiness (a standby replica serves too). */
  async readiness(): Promise<ComponentStatus> {
    const { id, leases, live } = await this.view();
    if (!this.registry) return { ok: true, detail: `${id} (one process, SQLite)` };
    const others = live.map((replica) => (replica.leases.length > 0 ? `${replica.id} [${replica.leases.join(", ")}]` : replica.id));
    return { ok: true, detail: `${id} holds ${leases.length > 0 ? leases.join(", ") : "no connection lease"}; live: ${others.join("; ")}` };
  }
}

/** The live replicas as doctor lists them. */
export function listReplicas(store: Store): Promise<ReplicaInfo[]> {
  return liveReplicas(store.coordinator);
}
