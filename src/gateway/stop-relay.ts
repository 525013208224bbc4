/**
 * /stop across replicas: a session's turn may run on another replica than the one the /stop reached (webhooks and
 * WebChat requests are spread over replicas), so the stop is published on the store's bus and every replica cancels
 * the session's turns it has. On the one-process store nothing is published.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../infra/log.js";
import type { MessageBus } from "../infra/store/types.js";

const TOPIC = "session:stop";

export class StopRelay {
  /** Its own announcements come back over the bus; they are skipped (this replica cancelled already). */
  private readonly origin = randomUUID();
  private readonly subscribed: Promise<(() => Promise<void>) | undefined>;

  /** `cancel` stops the session's turns in this process. */
  constructor(
    private readonly bus: MessageBus,
    cancel: (sessionKey: string) => void,
    private readonly log: Logger,
  ) {
    this.subscribed = bus.crossesProcesses
      ? bus.subscribe(TOPIC, (message) => this.receive(message, cancel)).catch((err: unknown) => {
          log.error({ err }, "could not subscribe to other replicas' /stop; a /stop then reaches only this replica's turns");
          return undefined;
        })
      : Promise.resolve(undefined);
  }

  /** Whether other replicas exist to tell. */
  get shared(): boolean {
    return this.bus.crossesProcesses;
  }

  /** Tells the other replicas to cancel the session's turns. */
  async announce(sessionKey: string): Promise<void> {
    if (!this.bus.crossesProcesses) return;
    await this.bus.publish(TOPIC, JSON.stringify({ origin: this.origin, sessionKey })).catch((err: unknown) => this.log.warn({ err, sessionKey }, "could not pass /stop to the other replicas"));
  }

  private receive(message: string, cancel: (sessionKey: string) => void): void {
    let stop: { origin?: unknown; sessionKey?: unknown };
    try {
      stop = JSON.parse(message) as typeof stop;
    } catch {
      stop = {};
    }
    if (typeof stop.sessionKey !== "string") return this.log.warn("a /stop from another replica could not be read; ignored");
    if (stop.origin !== this.origin) cancel(stop.sessionKey);
  }

  async close(): Promise<void> {
    await (await this.subscribed)?.().catch((err: unknown) => this.log.warn({ err }, "could not unsubscribe from other replicas' /stop"));
  }
}
