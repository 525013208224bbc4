/**
 * What the gateway knows about the media of the messages it handled: the attachments, where each was
 * downloaded, and the transcript of a voice message. Kept in the store for as long as the downloads are kept,
 * so a later turn can find the voice note a user replies to.
 */
import type { Attachment, ChannelName, InboundMessage } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";

export interface StoredAttachment extends Attachment {
  /** Absolute path of the download, in the workspace of the session that downloaded it. */
  path?: string;
  transcript?: string;
}

export interface MediaRecord {
  channel: ChannelName;
  chatId: string;
  /** The platform's id of the message. */
  messageId: string;
  receivedAt: string;
  attachments: StoredAttachment[];
}

export class MediaRecords {
  private readonly records: Namespace<MediaRecord>;

  constructor(
    store: Store,
    private readonly ttlMs: number,
  ) {
    this.records = store.namespace<MediaRecord>("workspace");
  }

  get(channel: ChannelName, chatId: string, messageId: string): Promise<MediaRecord | undefined> {
    return this.records.get(keyOf(channel, chatId, messageId));
  }

  /** The stored record of `message`, or a fresh one made from it. */
  async of(message: InboundMessage): Promise<MediaRecord> {
    // Only a message with attachments is ever saved: most messages need no lookup.
    if (message.attachments.length === 0) return recordOf(message);
    return (await this.get(message.channel, message.chat.id, message.platformMessageId)) ?? recordOf(message);
  }

  save(record: MediaRecord): Promise<void> {
    return this.records.set(keyOf(record.channel, record.chatId, record.messageId), record, this.ttlMs);
  }
}

function recordOf(message: InboundMessage): MediaRecord {
  return {
    channel: message.channel,
    chatId: message.chat.id,
    messageId: message.platformMessageId,
    receivedAt: message.receivedAt.toISOString(),
    attachments: message.attachments.map((attachment) => ({ ...attachment })),
  };
}

const keyOf = (channel: ChannelName, chatId: string, messageId: string): string => `media:${channel}:${chatId}:${messageId}`;
