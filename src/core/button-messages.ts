/**
 * Messages with buttons as a port: a feature that asks someone something (an approval) sends its question with
 * buttons through here; the gateway records the buttons (src/gateway/actions.ts) and sends through the outbound
 * service. Where the channel has no buttons, the typed forms go under the text.
 */
import type { ButtonSpec, ChannelName, ChatType, OutboundTarget, SentMessage } from "./types.js";

/** Who the buttons are for, and where they are sent. */
export interface ButtonAudience {
  channel: ChannelName;
  userIds: string[];
  /** Omit for a direct message to the one user (a DM's chat id may differ from the user id, as on Discord). */
  chatId?: string;
  chatType: ChatType;
  threadId?: string;
}

export interface ButtonMessages {
  /** Sends `text` with button rows that `audience` may press (a button's own `userIds` narrow it); throws a SendError. */
  send(to: OutboundTarget, text: string, rows: readonly ButtonSpec[][], audience: ButtonAudience, opts?: { replyTo?: string }): Promise<SentMessage[]>;
}
