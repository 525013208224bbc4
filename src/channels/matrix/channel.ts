/**
 * The Matrix channel: a bot account that receives by /sync long polling (under the replica lease: one receiver
 * per account) and sends through the Client-Server API. start() resolves at once; whoami, the profile and the sync
 * loop run in the background and status() tells how it goes.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { safeFileName } from "../../core/file-names.js";
import type {
  Attachment,
  ButtonPressHandler,
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  InboundHandler,
  InboundMessage,
  LiveReply,
  LiveReplyOptions,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
} from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { BackgroundWork } from "../background.js";
import { downloadInto } from "../download.js";
import { MessageInbox } from "../inbox.js";
import { EditPreview, replyOptionsOf } from "../live-preview.js";
import { ThrottledLiveReply } from "../live-reply.js";
import { enc, MatrixApi, MatrixError } from "./api.js";
import type { MatrixSettings } from "./config.js";
import { MatrixPreview } from "./live.js";
import { messageOf, relationsOf, roomEventSchema, type BotIdentity, type RoomEvent } from "./normalize.js";
import { answerInvite, RoomDirectory } from "./rooms.js";
import { MatrixSender, TEXT_LIMIT, UPLOAD_LIMIT_BYTES } from "./send.js";
import { eventsSince } from "./timeline.js";
import { DEFAULT_SYNC_TIMING, SyncLoop, type SyncResponse, type SyncTiming } from "./sync.js";

export interface MatrixChannelOptions {
  settings: MatrixSettings;
  store: Store;
  log: Logger;
  /** Whether the access config lets a user in by name: for invitations under autoJoin invited-by-allowed. */
  knownUser?: (userId: string) => Promise<boolean>;
  /** Shorter waits for tests. */
  timing?: Partial<SyncTiming>;
}

interface Session {
  stopping: AbortController;
  connecting: Promise<void>;
  sync?: SyncLoop;
  bot?: BotIdentity;
  inbox?: MessageInbox;
}

export class MatrixChannel implements Channel {
  readonly name = "matrix" as const;
  readonly capabilities: ChannelCapabilities;
  readonly singleConnection: string;
  private readonly api: MatrixApi;
  private readonly sender: MatrixSender;
  private readonly rooms: RoomDirectory;
  private readonly background: BackgroundWork;
  /** Rooms whose encrypted messages were reported already. */
  private readonly encryptedReported = new Set<string>();
  private session: Session | undefined;
  private handler: InboundHandler | undefined;
  private state: ChannelStatus = { connected: false, detail: "not started" };

  constructor(private readonly opts: MatrixChannelOptions) {
    const { settings } = opts;
    this.background = new BackgroundWork(opts.log, "Matrix background work");
    this.api = new MatrixApi(settings.homeserverUrl, settings.accessToken);
    this.sender = new MatrixSender(this.api);
    this.rooms = new RoomDirectory(this.api);
    this.capabilities = {
      maxTextLength: TEXT_LIMIT,
      maxUploadBytes: UPLOAD_LIMIT_BYTES,
      edits: true,
      draftStreaming: false,
      reactions: true,
      buttons: false,
      threads: true,
      typing: true,
      voice: "ogg-opus",
      streaming: settings.streaming,
    };
    // Two /sync loops on one account would both answer: one receiver per account across replicas.
    const account = settings.userId ?? createHash("sha256").update(`${settings.homeserverUrl}\n${settings.accessToken}`).digest("hex").slice(0, 16);
    this.singleConnection = `matrix:${account}`;
  }

  async start(onMessage: InboundHandler, _onPress?: ButtonPressHandler): Promise<void> {
    if (this.session) throw new Error("The Matrix channel is already started");
    this.handler = onMessage;
    const stopping = new AbortController();
    const session: Session = { stopping, connecting: Promise.resolve() };
    this.session = session;
    this.state = { connected: false, detail: "connecting" };
    session.connecting = this.connect(session).catch((err: unknown) => {
      if (stopping.signal.aborted) return;
      const refused = err instanceof MatrixError && err.errcode === "M_UNKNOWN_TOKEN";
      this.opts.log.error({ err }, refused ? "the homeserver refused the Matrix access token" : "the Matrix channel could not start receiving");
      this.state = { connected: false, detail: refused ? "the access token was refused (MATRIX_ACCESS_TOKEN)" : `not receiving: ${(err as Error).message}` };
    });
  }

  async stop(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.handler = undefined;
    session.stopping.abort();
    await session.connecting;
    await session.sync?.stop();
    await this.background.idle();
    this.session = undefined;
    this.state = { connected: false, detail: "stopped" };
  }

  status(): ChannelStatus {
    return this.state;
  }

  sendText(to: OutboundTarget, text: string, opts?: SendTextOptions): Promise<SentMessage[]> {
    return this.sender.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile, opts?: SendTextOptions): Promise<SentMessage> {
    return this.sender.sendFile(to, file, opts);
  }

  async typing(to: OutboundTarget): Promise<void> {
    const bot = this.session?.bot;
    if (bot) await this.sender.typing(to.chatId, bot.userId);
  }

  async acknowledge(message: InboundMessage): Promise<() => Promise<void>> {
    const key = this.opts.settings.ackReaction;
    if (key === null) return async () => {};
    const reaction = await this.sender.react(message.chat.id, message.platformMessageId, key);
    return () => this.sender.redact(message.chat.id, reaction);
  }

  liveReply(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined {
    if (this.opts.settings.streaming === "off") return undefined;
    const preview = new EditPreview(new MatrixPreview(this.sender, to, replyOptionsOf(opts)), this.opts.log);
    return new ThrottledLiveReply(preview, this.opts.log);
  }

  /** An mxc:// URI from the content repository, fetched with the bot's token (authenticated media). */
  async download(attachment: Attachment, into: string): Promise<string> {
    const match = /^mxc:\/\/([^/]+)\/([^/?#]+)$/.exec(attachment.ref);
    if (!match) throw new Error(`Matrix: ${attachment.ref} is not an mxc:// content URI`);
    const [, server, mediaId] = match;
    const url = `${this.opts.settings.homeserverUrl.replace(/\/+$/, "")}/_matrix/client/v1/media/download/${enc(server!)}/${enc(mediaId!)}`;
    const name = safeFileName(attachment.name ?? `${attachment.kind}-${mediaId}`);
    return downloadInto(url, { headers: this.api.auth() }, join(into, `${mediaId}-${name}`), `the ${attachment.kind} from Matrix`, this.opts.settings.maxDownloadBytes);
  }

  private async connect(session: Session): Promise<void> {
    const { settings, store, log } = this.opts;
    const { signal } = session.stopping;
    const whoami = await this.api.call<{ user_id?: string }>({ method: "GET", path: "/_matrix/client/v3/account/whoami", signal });
    const userId = settings.userId ?? whoami.user_id;
    if (typeof userId !== "string") throw new Error("whoami answered no user_id");
    if (settings.userId !== null && whoami.user_id !== settings.userId) {
      throw new Error(`the access token belongs to ${whoami.user_id}, not to MATRIX_USER_ID ${settings.userId}`);
    }
    const profile = await this.api
      .call<{ displayname?: string }>({ method: "GET", path: `/_matrix/client/v3/profile/${enc(userId)}/displayname`, signal })
      .catch(() => ({ displayname: undefined }));
    session.bot = { userId, ...(typeof profile.displayname === "string" ? { displayName: profile.displayname } : {}) };
    session.inbox = new MessageInbox(store, `matrix-inbox:${userId}`);
    if (signal.aborted) return;
    log.info({ userId }, "Matrix account connected");
    const handler = this.handler;
    if (handler) this.background.track(session.inbox.replay(handler, log));
    session.sync = new SyncLoop({
      api: this.api,
      store,
      key: `matrix-sync:${userId}`,
      timeoutMs: settings.syncTimeoutMs,
      log,
      timing: { ...DEFAULT_SYNC_TIMING, ...this.opts.timing },
      take: (batch, since) => this.take(session, batch, since),
      onStatus: (connected, detail) => (this.state = { connected, detail: `${detail} as ${userId}` }),
    });
    session.sync.start();
  }

  /** Answers invitations and records a batch's messages; the function it returns hands them over. */
  private async take(session: Session, batch: SyncResponse, since: string | undefined): Promise<() => void> {
    const { bot, inbox } = session;
    const handler = this.handler;
    if (!bot || !inbox || !handler) return () => {};
    for (const [roomId, invite] of Object.entries(batch.rooms?.invite ?? {})) {
      const options = { api: this.api, sender: this.sender, botUserId: bot.userId, policy: this.opts.settings.autoJoin, knownUser: this.opts.knownUser, log: this.opts.log };
      await answerInvite(roomId, invite.invite_state?.events ?? [], options).catch((err: unknown) => this.opts.log.warn({ err, roomId }, "could not answer a Matrix invitation"));
    }
    // The history of the very first sync is what happened before the bot ran: not answered.
    if (since === undefined) return () => {};
    const fresh: InboundMessage[] = [];
    for (const [roomId, room] of Object.entries(batch.rooms?.join ?? {})) {
      for (const event of parseEvents(await eventsSince(this.api, roomId, room.timeline ?? {}, since, this.opts.log))) {
        const message = await this.messageIn(roomId, event, bot);
        if (message && (await inbox.record(message))) fresh.push(message);
      }
    }
    return () => {
      for (const message of fresh) this.background.track(inbox.handle(message, handler, this.opts.log));
    };
  }

  private async messageIn(roomId: string, event: RoomEvent, bot: BotIdentity): Promise<InboundMessage | undefined> {
    if (event.type === "m.room.member") this.rooms.forget(roomId);
    if (event.type === "m.room.encrypted" && !this.encryptedReported.has(roomId)) {
      this.encryptedReported.add(roomId);
      this.opts.log.warn({ roomId }, "an end-to-end encrypted message in a Matrix room: the bot cannot read encrypted rooms");
    }
    if (event.type !== "m.room.message" || event.sender === bot.userId) return undefined;
    const direct = await this.rooms.isDirect(roomId);
    const senderName = await this.rooms.nameOf(roomId, event.sender);
    const replyTo = relationsOf(event.content).inReplyTo;
    const repliesToBot = replyTo !== undefined && !direct && (await this.senderOf(roomId, replyTo)) === bot.userId;
    return messageOf(event, { roomId, bot, direct, ...(senderName !== undefined ? { senderName } : {}), repliesToBot, receivedAt: new Date() });
  }

  private async senderOf(roomId: string, eventId: string): Promise<string | undefined> {
    const event = await this.api
      .call<{ sender?: string }>({ method: "GET", path: `/_matrix/client/v3/rooms/${enc(roomId)}/event/${enc(eventId)}` })
      .catch((err: unknown) => {
        this.opts.log.debug({ err, roomId, eventId }, "could not fetch the event a Matrix message answers");
        return {} as { sender?: string };
      });
    return event.sender;
  }

}

function parseEvents(events: unknown[]): RoomEvent[] {
  return events.flatMap((e) => {
    const parsed = roomEventSchema.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
}
