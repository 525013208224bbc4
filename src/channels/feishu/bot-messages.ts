/**
 * The ids of the messages the bot sent, remembered for a while: a user who replies to one of them in a group is
 * talking to the bot even without an @mention. Losing this memory only costs that convenience, so store
 * failures are logged here and never fail a send or an inbound message.
 */
import type { Logger } from "../../infra/log.js";
import type { Namespace, Store } from "../../infra/store/types.js";

export class BotMessages {
  private readonly records: Namespace<true>;

  constructor(
    store: Store,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {
    this.records = store.namespace<true>("meta");
  }

  async remember(messageId: string): Promise<void> {
    await this.records.set(keyOf(messageId), true, this.ttlMs).catch((err: unknown) => {
      this.log.warn({ err, messageId }, "could not remember a sent Feishu message; replies to it will need an @mention");
    });
  }

  async isBots(messageId: string): Promise<boolean> {
    try {
      return (await this.records.get(keyOf(messageId))) === true;
    } catch (err) {
      this.log.warn({ err, messageId }, "could not look up whether the bot sent a Feishu message");
      return false;
    }
  }
}

const keyOf = (messageId: string) => `feishu:sent:${messageId}`;
