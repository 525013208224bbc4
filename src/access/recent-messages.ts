/**
 * Unaddressed messages of an allowed group chat, kept in the store (a few, for a short while) so that the next
 * message that does address the bot comes with the conversation it belongs to.
 */
import { z } from "zod";
import type { EarlierChatMessage } from "../core/turn.js";
import type { InboundMessage } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";
import type { AccessConfig } from "./config.js";

/** Each kept message is cut to this many characters: context, not a transcript. */
export const MAX_CONTEXT_TEXT = 500;

const keptSchema = z.array(
  z.object({ senderId: z.string(), senderName: z.string().optional(), text: z.string(), sentAt: z.string() }),
);

export class RecentMessages {
  private readonly records: Namespace<unknown>;
  private readonly maxAgeMs: number;

  constructor(
    private readonly config: AccessConfig["groupContext"],
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {
    this.records = store.namespace<unknown>("access");
    this.maxAgeMs = config.maxAgeMinutes * 60_000;
  }

  async remember(message: InboundMessage): Promise<void> {
    if (this.config.messages === 0) return;
    const key = keyOf(message);
    await this.store.coordinator.withLock(key, async () => {
      const kept = [...(await this.fresh(key)), toEarlier(message)].slice(-this.config.messages);
      await this.records.set(key, kept, this.maxAgeMs);
    });
  }

  /** The kept messages of the message's chat, oldest first; they are handed out once. */
  async take(message: InboundMessage): Promise<EarlierChatMessage[]> {
    if (this.config.messages === 0 || message.chat.type !== "group") return [];
    const key = keyOf(message);
    return this.store.coordinator.withLock(key, async () => {
      const kept = await this.fresh(key);
      if (kept.length > 0) await this.records.delete(key);
      return kept;
    });
  }

  private async fresh(key: string): Promise<EarlierChatMessage[]> {
    const parsed = keptSchema.safeParse((await this.records.get(key)) ?? []);
    // Context is a nicety: an unreadable record just means none.
    if (!parsed.success) return [];
    const oldest = this.now() - this.maxAgeMs;
    return parsed.data.filter((m) => Date.parse(m.sentAt) >= oldest);
  }
}

function keyOf(message: InboundMessage): string {
  const thread = message.chat.threadId === undefined ? "" : `:${message.chat.threadId}`;
  return `recent:${message.channel}:${message.chat.id}${thread}`;
}

function toEarlier(message: InboundMessage): EarlierChatMessage {
  const { sender } = message;
  const name = sender.name ?? sender.username;
  const attachments = message.attachments.length;
  const text = message.text.trim() !== "" ? message.text : `(sent ${attachments} attachment${attachments === 1 ? "" : "s"})`;
  return {
    senderId: sender.id,
    ...(name !== undefined ? { senderName: name } : {}),
    text: text.length > MAX_CONTEXT_TEXT ? `${text.slice(0, MAX_CONTEXT_TEXT)}…` : text,
    sentAt: message.receivedAt.toISOString(),
  };
}
