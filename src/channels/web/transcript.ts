/**
 * Display history of each web chat, so that a page refresh (or a second tab) shows the conversation.
 * This is what the page shows, not what the model remembers (that is the agent's session history).
 * Stored in the "web" namespace under the chat id; appends are serialized by a store lock so two
 * replicas writing the same chat do not drop each other's lines.
 */
import type { Namespace, Store } from "../../infra/store/types.js";
import type { ChatEntry } from "./schema.js";

export const TRANSCRIPT_LIMIT = 200;

export class Transcript {
  private readonly chats: Namespace<ChatEntry[]>;

  constructor(
    private readonly store: Store,
    private readonly limit = TRANSCRIPT_LIMIT,
  ) {
    this.chats = store.namespace<ChatEntry[]>("web");
  }

  async list(chatId: string): Promise<ChatEntry[]> {
    return (await this.chats.get(chatId)) ?? [];
  }

  /** Keeps the last `limit` entries. An entry whose id is already there (a page resending after a reconnect) is skipped. */
  async append(chatId: string, entry: ChatEntry): Promise<void> {
    await this.store.coordinator.withLock(`web:transcript:${chatId}`, async () => {
      const entries = await this.list(chatId);
      if (entries.some((e) => e.id === entry.id)) return;
      await this.chats.set(chatId, [...entries, entry].slice(-this.limit));
    });
  }
}
