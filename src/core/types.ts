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
  /**
   * The space the chat belongs to, where the platform groups chats under one roof: a Discord server (guild), a
   * Slack workspace, later a Matrix space. Access rules can cover a whole space; absent where there is none.
   */
  space?: string;
}

export interface SenderRef {
  id: string;
  name?: string;
  username?: string;
  isBot?: boolean;
  /** Role ids the sender holds in the chat's space, where the platform has roles (Discord roles, Slack user groups); access rules use them. */
  roles?: string[];
  /** The IANA time zone the sender's client reported (WebChat sends the browser's); a hint, unchecked. */
  timeZone?: string;
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
  /** The sender's language as their platform reports it (a BCP 47 tag such as "zh-CN"), when it does. */
  locale?: string;
  /** The platform payload, for debugging only. */
  raw?: unknown;
  /**
   * Where the channel keeps the message until it is handled, when it does: removed in the same write that records
   * the message as answered, so the answer and that record are never apart for longer than one store round trip.
   */
  inbox?: InboxEntry;
}

/** An entry of a durable list in the store (infra/store/durable-list.ts): the list's key and the entry's id. */
export interface InboxEntry {
  list: string;
  id: string;
  /**
   * Set once the write recording the message as answered has removed the entry: the channel then has nothing left to
   * remove. Unset, it removes the entry itself when the handler is done (any other outcome, or that write failed).
   */
  removed?: boolean;
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
  /** A voice message's waveform, base64 bytes 0-255 (Discord draws it). */
  waveform?: string;
}

export interface SentMessage {
  messageId: string;
  sentAt: Date;
}

export interface SendTextOptions {
  /** Platform message id of the message being answered. */
  replyTo?: string;
  /**
   * Skip the first `fromPart` parts of the text as the channel splits it: they arrived before an earlier attempt
   * failed (SendError.sent). The split is deterministic, so the rest is exactly what is still missing.
   */
  fromPart?: number;
  /**
   * The same for every attempt of one logical send (set by the outbound service). A platform with idempotent
   * sends (Feishu's uuid) derives its key from it, so that even an uncertain attempt may be repeated safely.
   */
  idempotencyKey?: string;
  /**
   * Button rows under the message (under its last part). Only for a channel whose capabilities.buttons is true;
   * the gateway turns buttons into typed commands in the text for the others (src/gateway/actions.ts).
   */
  buttons?: ButtonRow[];
}

/** A button as the channel shows it: a label and the opaque id of the action the gateway recorded for it. */
export interface Button {
  label: string;
  /** At most 32 characters of A-Z a-z 0-9 _ - (fits Telegram's 64-byte callback_data and Discord's custom_id). */
  actionId: string;
  style?: ButtonStyle;
}

export type ButtonStyle = "primary" | "danger" | "secondary";
export type ButtonRow = Button[];

/**
 * A button as whoever offers it describes it: pressing it does what typing `run` would do (a slash command, or a
 * message to the assistant), as the presser. The typed form is also the text fallback where there are no buttons.
 */
export interface ButtonSpec {
  label: string;
  run: string;
  style?: ButtonStyle;
  /** Only these of the audience may press this one (an owner's button beside everyone's). */
  userIds?: string[];
}

/** Someone pressed a button under one of the bot's messages. */
export interface ButtonPress {
  channel: ChannelName;
  /** The platform's id of this press (callback query id, interaction id, card action token). */
  id: string;
  chat: ChatRef;
  sender: SenderRef;
  /** The Button.actionId it carried: untrusted until the gateway finds its record. */
  actionId: string;
  /** The presser's client language (BCP 47), where the platform tells it, as InboundMessage.locale. */
  locale?: string;
  /** The platform id of the message carrying the button. */
  messageId: string;
  receivedAt: Date;
  /**
   * Answers the press, once, promptly (platforms wait at most about 3 s): a short notice only the presser sees,
   * and whether the buttons are taken off the message because its action is done.
   */
  answer(reply: PressAnswer): Promise<void>;
}

export interface PressAnswer {
  notice?: string;
  clearButtons?: boolean;
}

/** Called by a channel for every button press; never rejects. */
export type ButtonPressHandler = (press: ButtonPress) => Promise<void>;

/**
 * A text of the command menu in the gateway's default language (`CommandMenu.locale`), and in each other language
 * it speaks, by canonical tag ("en", "zh-Hans"); the platform shows a person the one of their client's language.
 */
export interface MenuText {
  text: string;
  translations: Readonly<Record<string, string>>;
}

/** One command of a platform's command menu (Telegram's / list, Discord's slash commands). */
export interface MenuCommand {
  /** Lower-case, without the slash. */
  name: string;
  /** One line, at most 100 characters in every language (the shortest platform limit). */
  description: MenuText;
  /** What its text option says (Discord); absent when the command takes no text after its name. */
  argument?: MenuText;
}

/** The commands a channel shows in its native menu: for everyone, and in the owners' private chats also theirs. */
export interface CommandMenu {
  /** The canonical tag of the default language, the one `MenuText.text` is in (i18n.default). */
  locale: string;
  everyone: MenuCommand[];
  owners: MenuCommand[];
  /** Platform user ids of this channel's owners. */
  ownerIds: string[];
}

/**
 * How the platform plays a voice message: `ogg-opus` needs Ogg/Opus with its duration (Telegram, Feishu),
 * `audio-file` has no voice messages and gets an audio file (Discord), `any` plays what it is given (WebChat).
 */
export type VoiceFormat = "ogg-opus" | "audio-file" | "any";

/**
 * What a channel can do, declared by the adapter; callers check these instead of knowing the platform. A feature
 * the adapter does not implement yet is false even where the platform has it.
 */
export interface ChannelCapabilities {
  /** Longest text of one message; sendText splits longer texts into parts. */
  maxTextLength: number;
  maxCaptionLength?: number;
  maxUploadBytes: number;
  /** Sent messages can be edited afterwards. */
  edits: boolean;
  /** A reply can be streamed as a draft that grows while the model writes. */
  draftStreaming: boolean;
  /** Messages can carry emoji reactions from the bot. */
  reactions: boolean;
  /** Messages can carry buttons the user presses (SendTextOptions.buttons; presses reach the ButtonPressHandler). */
  buttons: boolean;
  /** Replies go into the thread or topic the message came from (OutboundTarget.threadId). */
  threads: boolean;
  /** Has a typing indicator (Channel.typing). */
  typing: boolean;
  voice: VoiceFormat;
  /** How replies show while they are written (the channel's `streaming` setting); absent: "off". */
  streaming?: StreamingMode;
  /**
   * Where the platform accepts only replies to a user's message (QQ): how long after it, in minutes, per chat type.
   * A send later than that (a reminder) cannot be delivered. Absent: no such window.
   */
  replyWindowMinutes?: Readonly<Record<ChatType, number>>;
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

/**
 * Called by a channel for every inbound message; resolves when the message has been handled, and never rejects.
 * What the channel does with the outcome: "deferred" means the gateway is shutting down and did not handle it, so
 * the channel keeps the message (in its store-backed inbox, src/channels/inbox.ts) and hands it over again after
 * the restart; every other outcome is final and the channel forgets the message.
 */
export type InboundHandler = (message: InboundMessage) => Promise<HandleOutcome>;

/**
 * The channel contract (checked for every adapter by test/channels/contract.ts).
 *
 * Receiving: a channel records each inbound event in the store before it acknowledges it to the platform (webhook
 * 200, polling offset, socket ack), so an acknowledged event survives a crash; it hands each one to the handler
 * once, replays what is still recorded when it starts, and drops platform redeliveries of an event it holds.
 *
 * Sending: sendText and sendFile try once. A failure rejects with a SendError (src/core/send-error.ts) saying how
 * it failed, with the parts of a long text that did arrive; the retry policy is the outbound service's alone.
 */
export interface Channel {
  readonly name: ChannelName;
  readonly capabilities: ChannelCapabilities;
  /**
   * Set when the platform allows the receiving connection once per bot (long polling, a gateway session, a long
   * connection): names that bot, e.g. "telegram:123456" (no secret). With several replicas on one store only the
   * replica holding the lease on it starts the channel; the others send through it unstarted. Unset for webhooks.
   */
  readonly singleConnection?: string;
  /**
   * Registers its routes and starts connecting, then resolves: from then on messages that arrive reach `onMessage`
   * and sends work (a connection still being made shows in status(), not in start()).
   * Rejects only when the channel cannot run as configured (credentials refused, settings contradict the platform),
   * with an error saying what to fix; an outage at start is not that: it resolves, reports it in status(), and
   * keeps reconnecting in the background. Called once per instance, or again after stop() when it has a
   * `singleConnection` (a replica that lost the lease stops it, and starts it again when it gets the lease back).
   */
  start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void>;
  /** Stops receiving, waits for its handlers to return, and releases connections; never rejects for an outage. */
  stop(): Promise<void>;
  status(): ChannelStatus;
  /** Sends the text (split at capabilities.maxTextLength), from part `opts.fromPart` on; one SentMessage per part. */
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
  /**
   * Registers the native command menu (called after start); a slash command chosen from it reaches `onMessage` as
   * an InboundMessage whose text is the typed command. Absent where the platform has no menu the bot can set.
   */
  setCommandMenu?(menu: CommandMenu): Promise<void>;
  /** Messages from other bots are handed on (the adapter guards against reply loops); default: dropped. */
  readonly acceptsBots?: boolean;
}

/**
 * The idempotency key of the reply to `message`: the same when the message is handled again (a restart after the
 * reply went out but before the message was marked handled), so a platform that deduplicates sends (Feishu's uuid
 * for an hour, Discord's nonce for a few minutes) answers with the reply it already has instead of a second one.
 */
export function replyKeyOf(message: InboundMessage): string {
  return `reply:${message.id}`;
}

export function targetOf(message: InboundMessage): OutboundTarget {
  return {
    channel: message.channel,
    chatId: message.chat.id,
    ...(message.chat.threadId !== undefined ? { threadId: message.chat.threadId } : {}),
  };
}
