/**
 * The chats the gateway has received messages from: the only ones an owner may deliver to from another chat,
 * so a typo or an invented id cannot post files into a stranger's conversation.
 */
import type { ChannelName, ChatType } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";

export interface KnownChat {
  type: ChatType;
  title?: string;
  lastSeen: string;
}

/** A chat unheard of for this long is forgotten. */
const FORGET_AFTER_MS = 180 * 24 * 3_600_000;

export class KnownChats {
  private readonly chats: Namespace<KnownChat>;

  constructor(store: Store) {
    this.chats = store.namespace<KnownChat>("meta");
  }

  remember(channel: ChannelName, chatId: string, chat: KnownChat): Promise<void> {
    return this.chats.set(keyOf(channel, chatId), chat, FORGET_AFTER_MS);
  }

  get(channel: ChannelName, chatId: string): Promise<KnownChat | undefined> {
    return this.chats.get(keyOf(channel, chatId));
  }
}

const keyOf = (channel: ChannelName, chatId: string): string => `im:chat:${channel}:${chatId}`;
