/**
 * The message bus across replicas: Redis pub/sub, with channels under the store's key prefix. A connection that
 * subscribes can do nothing else, so subscriptions use a duplicate of the store's client, opened at the first
 * subscribe; it reconnects and resubscribes on its own (messages published meanwhile are lost: at most once).
 */
import type { RedisClientType } from "@keyv/redis";
import type { Logger } from "../log.js";
import type { MessageBus } from "./types.js";
import type { BackendGuard } from "./backend-guard.js";

export class RedisBus implements MessageBus {
  readonly crossesProcesses = true;
  #subscriber: Promise<RedisClientType> | undefined;

  constructor(
    private readonly client: RedisClientType,
    private readonly guard: BackendGuard,
    private readonly keyPrefix: string,
    private readonly log: Logger,
  ) {}

  async publish(topic: string, message: string): Promise<void> {
    await this.guard.run("publish", `bus:${topic}`, () => this.client.publish(this.channelOf(topic), message));
  }

  async subscribe(topic: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = await this.subscriberClient();
    const channel = this.channelOf(topic);
    const listener = (message: string): void => onMessage(message);
    await this.guard.run("subscribe", `bus:${topic}`, () => subscriber.subscribe(channel, listener));
    return async () => {
      await this.guard.run("unsubscribe", `bus:${topic}`, () => subscriber.unsubscribe(channel, listener));
    };
  }

  async close(): Promise<void> {
    const subscriber = await this.#subscriber?.catch(() => undefined);
    if (subscriber?.isOpen) subscriber.destroy();
  }

  private subscriberClient(): Promise<RedisClientType> {
    this.#subscriber ??= (async () => {
      const subscriber = this.client.duplicate();
      subscriber.on("error", (err: unknown) => this.log.debug({ err }, "redis subscriber connection error; reconnecting"));
      await this.guard.run("connect subscriber", "bus", () => subscriber.connect());
      return subscriber as RedisClientType;
    })();
    // A failed connect is not kept: the next subscribe tries again.
    this.#subscriber.catch(() => (this.#subscriber = undefined));
    return this.#subscriber;
  }

  private channelOf(topic: string): string {
    return `${this.keyPrefix}bus:${topic}`;
  }
}
