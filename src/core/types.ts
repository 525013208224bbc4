/**
 * The normalized message model every channel adapter produces and consumes.
 * The router, the agent and the tool handlers know only these types, never a platform payload.
 */

/** A channel module's name ("telegram", "web", ...): the set is open, one per folder in src/channels. */
export type ChannelName = string;

export type ChatType = "direct" | "group";

export interface ChatRef {
  id: string;
  type: ChatType;
  title?: string;
  /** Forum topic, Discord thread or Feishu thread; replies go back into it. */
  threadId?: string;
  /** The Discord server (guild) the chat belongs to; absent elsewhere. */
  guildId?: string;
}

export interface SenderRef {
  id: string;
  name?: string;
  username?: string;
  isBot?: boolean;
  /** Role ids of the sender where the platform has roles (Discord guilds). */
  roles?: string[];
}

export type AttachmentKind = "image" | "voice" | "audio" | "video" | "file" | "sticker";

export interface Attachment {
  kind: AttachmentKind;
  /** Platform file id or key: enough for the adapter to download it later. */
  ref: string;
  name?: string;
  mime?: string;
  size?: number;
  durationSec?: number;
}

export interface InboundMessage {
  /** `${channel}:${platform message id}`: unique and stable across redelivery. */
  id: string;
  /** The platform's own id of the message, used to reply to it. */
  platformMessageId: string;
  channel: ChannelName;
  chat: ChatRef;
  sender: SenderRef;
  /** Plain text, mentions resolved to names, the bot's own mention removed. */
  text: string;
  attachments: Attachment[];
  replyTo?: { messageId: string; text?: string; fromBot?: boolean };
  /** An @mention of the bot, or a reply to one of its messages. */
  mentionsBot: boolean;
  receivedAt: Date;
  /** The platform payload, for debugging only. */
  raw?: unknown;
}

export interface OutboundTarget {
  channel: ChannelName;
  chatId: string;
  threadId?: string;
}

export interface OutboundFile {
  /** Absolute local path of the file to upload. */
  path: string;
  kind: Exclude<AttachmentKind, "sticker">;
  name: string;
  mime?: string;
  caption?: string;
  durationSec?: number;
}

export interface SentMessage {
  messageId: string;
  sentAt: Date;
}

export interface SendTextOptions {
  /** Platform message id of the message being answered. */
  replyTo?: string;
}

/**
 * How the platform plays a voice message: `ogg-opus` needs Ogg/Opus with its duration (Telegram, Feishu),
 * `audio-file` has no voice messages and gets an audio file (Discord), `any` plays what it is given (WebChat).
 */
export type VoiceFormat = "ogg-opus" | "audio-file" | "any";

export interface ChannelCapabilities {
  maxTextLength: number;
  maxCaptionLength?: number;
  maxUploadBytes: number;
  edits: boolean;
  threads: boolean;
  typing: boolean;
  voice: VoiceFormat;
  /** How replies show while they are written (the channel's `streaming` setting); absent: "off". */
  streaming?: StreamingMode;
}

/**
 * How a channel shows a reply while the model writes it: not at all, as a message edited in place ("preview"),
 * or as the platform's own draft where it has one ("draft": Telegram private chats, a preview elsewhere).
 */
export type StreamingMode = "off" | "preview" | "draft";

export interface LiveReplyOptions extends SendTextOptions {
  chatType: ChatType;
}

/** A reply shown while a turn runs, then finished with the final text; no preview is left behind either way. */
export interface LiveReply {
  /** Shows `text` (Markdown: the answer so far, maybe a status line); the channel throttles what reaches the platform. */
  update(text: string): void;
  /** Sends the final text as sendText would (the same format and chunks), in place of the preview. */
  finish(text: string): Promise<SentMessage[]>;
  /** Removes the preview: the turn was stopped. */
  cancel(): Promise<void>;
}

export interface ChannelStatus {
  connected: boolean;
  detail?: string;
}

/** How the router dealt with one inbound message. */
export type HandleOutcome =
  | "answered" // a turn ran (or a command answered) and its reply was sent
  | "duplicate" // seen before (platform redelivery); nothing was done
  | "ignored" // not for the bot, e.g. a group message without a mention
  | "refused" // not allowed, or over a limit; the sender was told when appropriate
  | "stopped" // the turn was cancelled with /stop
  | "deferred" // not handled because the gateway is shutting down: deliver it again after the restart
  | "failed"; // the turn failed; the sender got an apology with an error id

/** Called by a channel for every inbound message; resolves when the message has been handled. */
export type InboundHandler = (message: InboundMessage) => Promise<HandleOutcome>;

export interface Channel {
  readonly name: ChannelName;
  readonly capabilities: ChannelCapabilities;
  start(onMessage: InboundHandler): Promise<void>;
  stop(): Promise<void>;
  status(): ChannelStatus;
  sendText(to: OutboundTarget, text: string, opts?: SendTextOptions): Promise<SentMessage[]>;
  sendFile(to: OutboundTarget, file: OutboundFile, opts?: SendTextOptions): Promise<SentMessage>;
  /** Downloads an attachment into the directory `into`; returns the local path. */
  download(attachment: Attachment, into: string): Promise<string>;
  typing?(to: OutboundTarget): Promise<void>;
  /**
   * Marks the user's message as being answered (a reaction) when its turn starts; resolves with the function that
   * takes the mark back once the reply is out. Absent, or a no-op, where the channel's `ackReaction` is off.
   */
  acknowledge?(message: InboundMessage): Promise<() => Promise<void>>;
  /** A live reply for a turn answering into `to`; undefined where the channel does not stream (streaming "off"). */
  liveReply?(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined;
  /** Messages from other bots are handed on (the adapter guards against reply loops); default: dropped. */
  readonly acceptsBots?: boolean;
}

export function targetOf(message: InboundMessage): OutboundTarget {
  return {
    channel: message.channel,
    chatId: message.chat.id,
    ...(message.chat.threadId !== undefined ? { threadId: message.chat.threadId } : {}),
  };
}
