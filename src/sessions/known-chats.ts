/**
 * The chats the gateway has received messages from: the only ones an owner may deliver to from another chat,
 * so a typo or an invented id cannot post files into a stranger's conversation.
 */
import { LRUCache } from "lru-cache";
import type { ChannelName, ChatType } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";

export interface KnownChat {
  type: ChatType;
  title?: string;
  lastSeen: string;
}

/** A chat unheard of for this long is forgotten. */
const FORGET_AFTER_MS = 180 * 24 * 3_600_000;

/** A chat seen again within this long, unchanged, is not written again: lastSeen only has to be right to a day. */
const REWRITE_AFTER_MS = 24 * 3_600_000;
/** Chats whose last write this process remembers; older ones are simply written again. */
const RECENT_WRITES = 2_000;

export class KnownChats {
  private readonly chats: Namespace<KnownChat>;
  /** What this process last wrote per chat key, so that every message of a busy chat does not rewrite it. */
  private readonly written = new LRUCache<string, KnownChat>({ max: RECENT_WRITES });

  constructor(store: Store) {
    this.chats = store.namespace<KnownChat>("meta");
  }

  async remember(channel: ChannelName, chatId: string, chat: KnownChat): Promise<void> {
    const key = keyOf(channel, chatId);
    const last = this.written.get(key);
    if (last && last.type === chat.type && last.title === chat.title && Date.parse(chat.lastSeen) - Date.parse(last.lastSeen) < REWRITE_AFTER_MS) return;
    await this.chats.set(key, chat, FORGET_AFTER_MS);
    this.written.set(key, chat);
  }

  async has(channel: ChannelName, chatId: string): Promise<boolean> {
    const key = keyOf(channel, chatId);
    return this.written.has(key) || (await this.chats.get(key)) !== undefined;
  }
}

const keyOf = (channel: ChannelName, chatId: string): string => `im:chat:${channel}:${chatId}`;
