/**
 * Receiving under a lease, for channels whose connection the platform allows once per bot (`singleConnection`:
 * Telegram long polling, the Discord gateway, the Feishu long connection) when replicas share a Redis store.
 * Every replica builds the channel and sends through it; only the lease holder starts it (receives). When the
 * holder dies its lease runs out and a standby starts the channel, which replays what the store still holds.
 */
import type { ButtonPressHandler, Channel, ChannelStatus, InboundHandler } from "../core/types.js";
import { LeaseKeeper, type LeaseTiming } from "../infra/cluster/lease.js";
import type { Logger } from "../infra/log.js";
import type { Leases } from "../infra/store/types.js";

/** What the gateway starts, stops and asks for status: the channel itself, or its receiving under a lease. */
export interface ChannelRunner {
  start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void>;
  stop(): Promise<void>;
  status(): ChannelStatus;
  /** The lease key this replica holds for the channel, if any. */
  heldLease?(): string | undefined;
}

export interface LeaseSettings {
  leases: Leases;
  replicaId: string;
  timing: LeaseTiming;
  log: Logger;
}

/** The channel itself when it needs no lease; otherwise its receiving under the lease on its single connection. */
export function channelRunner(channel: Channel, lease: LeaseSettings | null): ChannelRunner {
  if (!lease || channel.singleConnection === undefined) return channel;
  return new LeasedReceiving(channel, channel.singleConnection, lease);
}

class LeasedReceiving implements ChannelRunner {
  private keeper: LeaseKeeper | undefined;
  /** Why the channel does not run here, when starting it under the lease failed. */
  private failure: string | undefined;

  constructor(
    private readonly channel: Channel,
    private readonly connection: string,
    private readonly lease: LeaseSettings,
  ) {}

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    const { leases, replicaId, timing, log } = this.lease;
    this.keeper = new LeaseKeeper({
      leases,
      key: `connection:${this.connection}`,
      holder: replicaId,
      timing,
      log: log.child({ channel: this.channel.name }),
      guarded: {
        acquired: async () => {
          this.failure = undefined;
          await this.channel.start(onMessage, onPress).catch((err: unknown) => {
            this.failure = (err as Error).message;
            throw err;
          });
        },
        lost: () => this.channel.stop(),
      },
    });
    await this.keeper.start();
  }

  async stop(): Promise<void> {
    await this.keeper?.stop();
  }

  status(): ChannelStatus {
    const state = this.keeper?.state();
    if (!state) return { connected: false, detail: "not started" };
    if (state.held) {
      const { connected, detail } = this.channel.status();
      return { connected, detail: `${detail ?? ""} (this replica holds the connection, fencing token ${state.token})`.trim() };
    }
    if (this.failure) return { connected: false, detail: `not receiving: ${this.failure}` };
    // A standby sends and serves webhooks; only receiving waits for the lease.
    if (state.holder) return { connected: true, detail: `standby: replica ${state.holder} holds the connection; this replica sends` };
    return { connected: false, detail: "waiting for the connection lease" };
  }

  heldLease(): string | undefined {
    return this.keeper?.state().held ? this.connection : undefined;
  }
}
