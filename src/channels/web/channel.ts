/**
 * The WebChat channel: the browser page and the HTTP API talk to the gateway directly, so "sending"
 * means recording a line in the chat's transcript and pushing it to the chat's open sockets and to the
 * API request it answers.
 */
import { randomUUID } from "node:crypto";
import { chunkText } from "../../core/text.js";
import { SendError } from "../../core/send-error.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import type {
  Attachment,
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  HandleOutcome,
  InboundHandler,
  LiveReply,
  LiveReplyOptions,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
  StreamingMode,
} from "../../core/types.js";
import { MessageInbox } from "../inbox.js";
import { WebFiles } from "./files.js";
import { ChatHub } from "./hub.js";
import { WebLiveReply } from "./live.js";
import { ChatRelay } from "./relay.js";
import { PendingReplies } from "./replies.js";
import { registerWebRoutes, type AskResult } from "./routes.js";
import { toInboundMessage, type ApiMessage, type ChatEntry, type WebAttachment, type WebInbound } from "./schema.js";
import type { Received } from "./socket.js";
import { Transcript } from "./transcript.js";

export interface WebChannelOptions {
  store: Store;
  log: Logger;
  http: HttpServer;
  dataDir: string;
  /** Longest text a user may send. */
  maxTextLength: number;
  /** Largest file the bot may send. Default 50 MiB. */
  maxUploadBytes?: number;
  /** How long an API request waits for its message to be handled. Default 10 minutes. */
  turnTimeoutMs?: number;
  /** Shown in the page's header. Default "Switchboard". */
  botName?: string;
  /**
   * Take the userId a client sends: only when requests carry a checked token (http.token). Otherwise every
   * WebChat and API user is the one local user, web:local.
   */
  trustUserIds: boolean;
  /** Whether open tabs see replies as they are written ("preview" and "draft" both do). Default "preview". */
  streaming?: StreamingMode;
}

/** The one WebChat user when there is no token: anyone who reaches the port is the same person. */
export const LOCAL_WEB_USER = "local";

const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const DEFAULT_TURN_TIMEOUT_MS = 10 * 60_000;
const SHUTDOWN = 1001;

export class WebChannel implements Channel {
  readonly name = "web" as const;
  readonly capabilities: ChannelCapabilities;
  private readonly transcript: Transcript;
  private readonly files: WebFiles;
  private readonly hub = new ChatHub();
  private readonly pending = new PendingReplies();
  private readonly relay: ChatRelay;
  /** A message the gateway deferred at shutdown is handed over again at the next start. */
  private readonly inbox: MessageInbox;
  private handler: InboundHandler | undefined;
  /** Hono cannot remove routes, so a restarted channel keeps the ones it registered first. */
  private routesRegistered = false;

  constructor(private readonly opts: WebChannelOptions) {
    const maxUploadBytes = opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
    this.capabilities = {
      maxTextLength: 100_000,
      maxUploadBytes,
      edits: false,
      draftStreaming: false,
      reactions: false,
      buttons: false,
      threads: false,
      typing: true,
      voice: "any",
      streaming: opts.streaming ?? "preview",
    };
    this.transcript = new Transcript(opts.store);
    this.files = new WebFiles(opts.store, opts.dataDir, maxUploadBytes);
    this.relay = new ChatRelay(opts.store.bus, this.hub, this.pending, opts.log);
    this.inbox = new MessageInbox(opts.store, "web-inbox");
  }

  async start(onMessage: InboundHandler): Promise<void> {
    if (this.handler) throw new Error("The web channel is already started");
    if (!this.routesRegistered) {
      const { log, maxTextLength } = this.opts;
      await registerWebRoutes(this.opts.http, {
        botName: this.opts.botName ?? "Switchboard",
        maxTextLength,
        files: this.files,
        ask: (message) => this.ask(message),
        socket: {
          hub: this.hub,
          maxTextLength,
          log,
          history: (chatId) => this.transcript.list(chatId),
          receive: (input) => this.receive(input, { kept: true }),
        },
      });
      this.routesRegistered = true;
    }
    await this.relay.start();
    this.handler = onMessage;
    this.inbox.replay(onMessage, this.opts.log).catch((err: unknown) => this.opts.log.error({ err }, "could not read the WebChat messages deferred at the last stop"));
  }

  async stop(): Promise<void> {
    this.handler = undefined;
    await this.relay.stop();
    this.hub.closeAll(SHUTDOWN, "WebChat stopped");
  }

  status(): ChannelStatus {
    return this.handler ? { connected: true } : { connected: false, detail: "not started" };
  }

  /** One transcript entry per part of at most maxTextLength characters (a text that long is rare); fromPart skips parts. */
  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const max = this.capabilities.maxTextLength;
    const parts = text.length <= max ? [text] : chunkText(text, { maxLength: max });
    const sent: SentMessage[] = [];
    for (const part of parts.slice(opts.fromPart ?? 0)) {
      const entry = botEntry(part, []);
      try {
        await this.deliver(to.chatId, entry, opts.replyTo);
      } catch (err) {
        // The entry is shown only once it is in the transcript: nothing of this part arrived, and a retry is safe.
        throw new SendError(`recording a WebChat reply in chat ${to.chatId} failed: ${(err as Error).message}`, { kind: "unavailable" }, { cause: err, sent });
      }
      sent.push({ messageId: entry.id, sentAt: new Date(entry.at) });
    }
    return sent;
  }

  /** Without `opts.replyTo` the file goes to the chat's longest-waiting API request, the one its session is handling. */
  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const attachment = await this.files.save(file);
    const entry = botEntry(file.caption ?? "", [attachment]);
    await this.deliver(to.chatId, entry, opts.replyTo ?? this.pending.oldest(to.chatId));
    return { messageId: entry.id, sentAt: new Date(entry.at) };
  }

  async typing(to: OutboundTarget): Promise<void> {
    this.relay.broadcast(to.chatId, { type: "typing" });
  }

  liveReply(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined {
    if (this.capabilities.streaming === "off") return undefined;
    return new WebLiveReply(this.relay, to.chatId, (text) => this.sendText(to, text, opts));
  }

  download(attachment: Attachment): Promise<string> {
    return Promise.reject(new Error(`Cannot download ${attachment.ref}: WebChat messages carry no attachments to download`));
  }

  private async deliver(chatId: string, entry: ChatEntry, replyTo: string | undefined): Promise<void> {
    await this.transcript.append(chatId, entry);
    this.relay.broadcast(chatId, { type: "message", ...entry }, replyTo);
  }

  /**
   * Shows the user's message (transcript, open tabs), then hands it to the router. A `kept` message (from the page,
   * which cannot send it again) waits in the inbox until handled, so one deferred at shutdown is handled after the
   * restart.
   */
  private async receive(claimed: WebInbound, { kept }: { kept: boolean }): Promise<Received | undefined> {
    const handler = this.handler;
    if (!handler) return undefined;
    const input = this.opts.trustUserIds ? claimed : { ...claimed, userId: LOCAL_WEB_USER };
    const receivedAt = new Date();
    const entry: ChatEntry = { id: input.messageId, role: "user", text: input.text, attachments: [], at: receivedAt.toISOString() };
    await this.transcript.append(input.chatId, entry);
    this.relay.broadcast(input.chatId, { type: "message", ...entry });
    const message = toInboundMessage(input, receivedAt);
    if (!kept) return { handled: handler(message) };
    // Already waiting: a page resending after a reconnect while the first copy is handled (or deferred).
    if (!(await this.inbox.record(message))) return { handled: Promise.resolve("duplicate") };
    const handled = handler(message);
    void handled.then(
      (outcome) => this.inbox.settle(message, outcome),
      () => this.inbox.settle(message, "failed"),
    ).catch((err: unknown) => this.opts.log.warn({ err, messageId: message.id }, "could not settle a WebChat message in the inbox"));
    return { handled };
  }

  private async ask(message: ApiMessage): Promise<AskResult> {
    const { chatId } = message;
    const messageId = message.messageId ?? randomUUID();
    const replies = this.pending.open(chatId, messageId);
    if (!replies) return { kind: "in_flight" };
    try {
      // An API caller is answered "deferred" and sends the message again itself, as a webhook platform would.
      const received = await this.receive({ ...message, messageId }, { kept: false });
      if (!received) return { kind: "unavailable" };
      const outcome = await within(received.handled, this.opts.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS);
      if (outcome === undefined) {
        received.handled.catch((err: unknown) =>
          this.opts.log.error({ err, chatId, messageId }, "web API message failed after its request timed out"),
        );
        return { kind: "timeout", replies: [...replies] };
      }
      return { kind: "answered", outcome, replies: [...replies] };
    } finally {
      this.pending.close(chatId, messageId);
    }
  }
}

function botEntry(text: string, attachments: WebAttachment[]): ChatEntry {
  return { id: randomUUID(), role: "bot", text, attachments, at: new Date().toISOString() };
}

/** The outcome, or undefined when `ms` pass first. */
async function within(handled: Promise<HandleOutcome>, ms: number): Promise<HandleOutcome | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([handled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
