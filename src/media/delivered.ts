/**
 * What a session has already delivered, by dedupe key and target chat, so that the same artifact asked for again
 * (a retried turn, a model repeating itself, a restart) is skipped instead of posted twice. Kept in the store.
 */
import type { OutboundTarget } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";

export interface EarlierDelivery {
  message_id: string;
  delivered_at: string;
}

export class DeliveryMemory {
  private readonly records: Namespace<EarlierDelivery>;

  constructor(
    store: Store,
    private readonly ttlMs: number,
  ) {
    this.records = store.namespace<EarlierDelivery>("receipts");
  }

  find(sessionKey: string, to: OutboundTarget, dedupeKey: string): Promise<EarlierDelivery | undefined> {
    return this.records.get(keyOf(sessionKey, to, dedupeKey));
  }

  remember(sessionKey: string, to: OutboundTarget, dedupeKey: string, delivery: EarlierDelivery): Promise<void> {
    return this.records.set(keyOf(sessionKey, to, dedupeKey), delivery, this.ttlMs);
  }
}

/** The thread is part of the chat: the same file may go once into each topic. */
function keyOf(sessionKey: string, to: OutboundTarget, dedupeKey: string): string {
  return `delivered:${sessionKey}|${to.channel}:${to.chatId}:${to.threadId ?? ""}|${dedupeKey}`;
}
