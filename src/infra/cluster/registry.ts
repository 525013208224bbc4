/**
 * The replicas sharing one store, as their heartbeats show them: each announces itself (with the leases it holds)
 * every `heartbeatMs`, for three heartbeats' time, so a replica killed without a goodbye drops off the list
 * within that time. On SQLite the list is this process alone.
 */
import { z } from "zod";
import type { Logger } from "../log.js";
import type { Presence } from "../store/types.js";

const GROUP = "replicas";
/** Missed heartbeats after which a replica counts as gone. */
const MISSED_BEATS = 3;

export interface ReplicaInfo {
  id: string;
  startedAt: string;
  /** The lease keys it holds, e.g. "telegram:123456". */
  leases: string[];
}

const announcedInfo = z.object({ startedAt: z.string(), leases: z.array(z.string()) });

export interface ReplicaRegistryOptions {
  presence: Presence;
  id: string;
  heartbeatMs: number;
  log: Logger;
  /** The lease keys this replica holds now. */
  leases: () => string[];
}

export class ReplicaRegistry {
  private readonly startedAt = new Date().toISOString();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(private readonly opts: ReplicaRegistryOptions) {}

  get id(): string {
    return this.opts.id;
  }

  /** Announces this replica (an unreachable store is logged, and the next heartbeat tries again). */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beating = this.beat();
    }, this.opts.heartbeatMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.opts.presence.withdraw(GROUP, this.opts.id).catch(() => undefined);
  }

  live(): Promise<ReplicaInfo[]> {
    return liveReplicas(this.opts.presence);
  }

  private async beat(): Promise<void> {
    const info = JSON.stringify({ startedAt: this.startedAt, leases: this.opts.leases() });
    try {
      await this.opts.presence.announce(GROUP, this.opts.id, info, this.opts.heartbeatMs * MISSED_BEATS);
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.opts.log.warn({ err, replica: this.opts.id }, "replica heartbeat failed; retrying");
      this.failing = true;
    }
  }
}

/** The replicas whose heartbeat is current; one whose announcement cannot be read is listed with what is known. */
export async function liveReplicas(presence: Presence): Promise<ReplicaInfo[]> {
  return (await presence.present(GROUP)).map(({ member, info }) => {
    const parsed = announcedInfo.safeParse(safeJson(info));
    return parsed.success ? { id: member, ...parsed.data } : { id: member, startedAt: "unknown", leases: [] };
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
