/**
 * The Slack channel: DMs, channels and threads through one bot, on @slack/web-api and @slack/socket-mode.
 * Inbound: Socket Mode (the default; one connection per bot, under the replica lease) or the Events API over HTTP
 * (every replica serves /slack/events); both deliver the same envelopes to the intake. Outbound: the Web API.
 */
import { createHash } from "node:crypto";
import type { WebClient } from "@slack/web-api";
import {
  targetOf,
  type Attachment,
  type ButtonPressHandler,
  type Channel,
  type ChannelCapabilities,
  type ChannelStatus,
  type InboundHandler,
  type InboundMessage,
  type LiveReply,
  type LiveReplyOptions,
  type OutboundFile,
  type OutboundTarget,
  type SendTextOptions,
  type SentMessage,
} from "../../core/types.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { MessageInbox } from "../inbox.js";
import { editedLiveReply, replyOptionsOf } from "../live-preview.js";
import { slackErrorOf, webClient } from "./api.js";
import { EVENTS_PATH, type SlackSettings } from "./config.js";
import { ConnectLoop } from "./connect-loop.js";
import { downloadFile } from "./files.js";
import { MAX_TEXT_LENGTH } from "./format.js";
import { SlackIntake, type Receivers } from "./intake.js";
import { SlackLocales } from "./locales.js";
import { SlackPreview } from "./live.js";
import type { SlackIdentity } from "./normalize.js";
import { SlackSender } from "./send.js";
import { SocketConnection, type Envelope } from "./socket.js";
import { SlackUserGroups } from "./user-groups.js";
import { registerEventsRoute } from "./webhook.js";

export interface SlackChannelOptions {
  settings: SlackSettings;
  store: Store;
  log: Logger;
  http: HttpServer;
  /** The clock the Events API's timestamps are checked against. */
  now?: () => number;
}

const MIB = 1024 * 1024;
/** Slack's answers to credentials it does not take: the channel cannot run until they are fixed. */
const REFUSED = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "not_allowed_token_type", "missing_scope", "no_permission"]);
const CREDENTIALS_FIX = "check SLACK_BOT_TOKEN (xoxb-...) and, for Socket Mode, SLACK_APP_TOKEN (xapp-... with connections:write)";

export class SlackChannel implements Channel {
  readonly name = "slack" as const;
  readonly capabilities: ChannelCapabilities;
  /** Socket Mode: one receiving connection per bot across replicas; the Events API runs everywhere. */
  readonly singleConnection: string | undefined;
  private readonly client: WebClient;
  private readonly sender: SlackSender;
  private readonly intake: SlackIntake;
  private readonly inbox: MessageInbox;
  private readonly socket: SocketConnection | undefined;
  private readonly loop: ConnectLoop;
  private bot: SlackIdentity | undefined;
  private receivers: Receivers | undefined;
  /** The handlers given to start(), until the bot's identity is known and receiving can begin. */
  private pending: { onMessage: InboundHandler; onPress: ButtonPressHandler | undefined } | undefined;
  private routeAdded = false;
  private readonly handling = new Set<Promise<unknown>>();

  constructor(private readonly opts: SlackChannelOptions) {
    const { settings, log, store } = opts;
    const botKey = createHash("sha256").update(settings.botToken).digest("hex").slice(0, 16);
    this.singleConnection = settings.mode === "socket" ? `slack:${botKey}` : undefined;
    const maxUploadBytes = Math.floor(settings.maxUploadMB * MIB);
    this.capabilities = {
      maxTextLength: MAX_TEXT_LENGTH,
      maxUploadBytes,
      edits: true,
      draftStreaming: false,
      reactions: true,
      buttons: true,
      threads: true,
      typing: false,
      voice: "audio-file",
      streaming: settings.streaming,
    };
    this.client = webClient(settings.botToken, settings.apiUrl, log);
    this.sender = new SlackSender(this.client, maxUploadBytes);
    this.inbox = new MessageInbox(store, `slack-inbox:${botKey}`);
    this.intake = new SlackIntake({
      inbox: this.inbox,
      sender: this.sender,
      slashCommand: settings.slashCommand,
      log,
      groups: new SlackUserGroups(this.client, log),
      locales: new SlackLocales(this.client, store, log),
    });
    if (settings.mode === "socket") {
      if (settings.appToken === null) throw new Error("channels.slack.appToken is not set: Socket Mode needs SLACK_APP_TOKEN (xapp-...)");
      this.socket = new SocketConnection({
        appToken: settings.appToken,
        apiUrl: settings.apiUrl,
        log,
        onEnvelope: (envelope) => this.envelope(envelope),
        onLost: () => this.loop.retry(),
      });
    }
    this.loop = new ConnectLoop({ attempt: () => this.connect(), fatal: (err) => (REFUSED.has(slackErrorOf(err) ?? "") ? CREDENTIALS_FIX : undefined), log });
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    if (this.receivers || this.pending) throw new Error("The Slack channel is already started");
    const { settings, log } = this.opts;
    if (settings.mode === "events" && !this.routeAdded) {
      if (settings.signingSecret === null) throw new Error("channels.slack.signingSecret is not set: mode events needs SLACK_SIGNING_SECRET");
      registerEventsRoute({
        http: this.opts.http,
        path: EVENTS_PATH,
        signingSecret: settings.signingSecret,
        log,
        receiver: () => (this.receivers ? (kind, body, retryNum) => this.intake.receive(kind, body, retryNum, this.receivers!) : undefined),
        ...(this.opts.now ? { now: this.opts.now } : {}),
      });
      this.routeAdded = true;
    }
    this.pending = { onMessage, onPress };
    await this.loop.start().catch((err: unknown) => {
      this.pending = undefined;
      throw err;
    });
  }

  async stop(): Promise<void> {
    this.receivers = undefined;
    this.pending = undefined;
    await this.loop.stop();
    await this.socket?.close();
    await Promise.all(this.handling);
  }

  status(): ChannelStatus {
    const problem = this.loop.problem;
    if (!this.bot) return { connected: false, detail: problem ?? "connecting" };
    if (this.socket && !this.socket.isConnected()) return { connected: false, detail: problem ?? "Socket Mode reconnecting" };
    return { connected: true };
  }

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.sender.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    return this.sender.sendFile(to, file, opts);
  }

  liveReply(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined {
    return editedLiveReply(this.opts.settings.streaming, () => new SlackPreview(this.sender, to, replyOptionsOf(opts)), this.opts.log);
  }

  async acknowledge(message: InboundMessage): Promise<() => Promise<void>> {
    const name = this.opts.settings.ackReaction;
    if (name === null || message.platformMessageId.startsWith("command:")) return async () => {};
    const { chatId } = targetOf(message);
    await this.sender.react(chatId, message.platformMessageId, name);
    return () => this.sender.react(chatId, message.platformMessageId, name, true);
  }

  download(attachment: Attachment, into: string): Promise<string> {
    const { settings } = this.opts;
    return downloadFile(attachment, into, { token: settings.botToken, apiUrl: settings.apiUrl, maxBytes: Math.floor(settings.maxDownloadMB * MIB) });
  }

  /** Learns who the bot is (once), then opens Socket Mode; receiving starts when both are done. */
  private async connect(): Promise<void> {
    if (!this.bot) {
      const me = await this.client.auth.test();
      if (typeof me.user_id !== "string") throw new Error("auth.test answered without the bot's user id");
      this.bot = { userId: me.user_id, botId: typeof me.bot_id === "string" ? me.bot_id : "" };
      this.opts.log.info({ userId: me.user_id, team: me.team }, "Slack bot identified");
    }
    const pending = this.pending;
    if (pending && !this.receivers) {
      this.receivers = { bot: this.bot, onMessage: pending.onMessage, onPress: pending.onPress, track: (work) => this.track(work) };
      this.track(this.inbox.replay((m) => this.intake.withSender(m).then(pending.onMessage), this.opts.log));
    }
    if (this.socket) {
      await this.socket.open();
      this.opts.log.info("connected to Slack (Socket Mode)");
    }
  }

  /** A Socket Mode envelope: acknowledged once it may be, then handled. */
  private async envelope({ kind, body, retryNum, ack }: Envelope): Promise<void> {
    const receivers = this.receivers;
    // Stopping: not acknowledged, so Slack sends it again (to the next receiver).
    if (!receivers) return;
    const { accepted, after } = await this.intake.receive(kind, body, retryNum, receivers);
    if (!accepted) return;
    await ack();
    after?.();
  }

  private track(work: Promise<unknown>): void {
    this.handling.add(work);
    void work.finally(() => this.handling.delete(work));
  }
}
