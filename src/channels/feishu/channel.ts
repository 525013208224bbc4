/**
 * The Feishu / Lark channel: events arrive over the long connection (default) or a webhook and become
 * InboundMessages; replies go out as cards, posts or text, files as image or file messages.
 */
import { systemClock, type Clock } from "../../core/clock.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
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
import { DEFAULT_THROTTLE, ThrottledLiveReply } from "../live-reply.js";
import { FeishuApi } from "./api.js";
import { BotMessages } from "./bot-messages.js";
import { CardActions, isCardAction } from "./card-actions.js";
import { feishuBaseUrl, type FeishuConfig } from "./config.js";
import { FeishuEvents } from "./events.js";
import { downloadAttachment, MAX_FILE_UPLOAD_BYTES } from "./media.js";
import { Outbound } from "./send.js";
import type { RetryPolicy } from "./retry.js";
import { FeishuSocket } from "./socket.js";
import { feishuPresenter } from "./streaming-card.js";
import { registerWebhook } from "./webhook.js";

export interface FeishuChannelOptions {
  config: FeishuConfig & { appId: string; appSecret: string };
  store: Store;
  log: Logger;
  http: HttpServer;
  /** How long event and message ids are remembered. */
  dedupTtlMs: number;
  /** Tests shorten the waits between retries. */
  retry?: RetryPolicy;
  /** The clock of the live reply's throttle; tests give one that runs faster than real time. */
  clock?: Clock;
}

export class FeishuChannel implements Channel {
  readonly name = "feishu" as const;
  readonly capabilities: ChannelCapabilities;
  private readonly api: FeishuApi;
  private readonly events: FeishuEvents;
  private readonly outbound: Outbound;
  private readonly cards: CardActions;
  private socket: FeishuSocket | undefined;
  private running = false;
  /** Hono cannot remove routes, so a restarted channel keeps the one it registered first. */
  private webhookRegistered = false;

  constructor(private readonly opts: FeishuChannelOptions) {
    const { config, store, log, dedupTtlMs } = opts;
    this.capabilities = {
      maxTextLength: config.maxMessageLength,
      maxUploadBytes: MAX_FILE_UPLOAD_BYTES,
      edits: true,
      draftStreaming: config.streaming === "card",
      reactions: true,
      buttons: true,
      threads: true,
      typing: false,
      voice: "ogg-opus",
      // A streaming card is Feishu's own draft.
      streaming: config.streaming === "card" ? "draft" : config.streaming,
    };
    this.api = new FeishuApi({
      appId: config.appId,
      appSecret: config.appSecret,
      baseUrl: feishuBaseUrl(config.domain),
      log,
      ...(opts.retry ? { retry: opts.retry } : {}),
    });
    const botMessages = new BotMessages(store, dedupTtlMs, log);
    this.events = new FeishuEvents({ log, store, botMessages, dedupTtlMs });
    this.cards = new CardActions(log);
    this.outbound = new Outbound({
      onButtonCard: (messageId, markdown) => this.cards.remember(messageId, markdown),
      api: this.api,
      botMessages,
      log,
      format: config.replyFormat,
      maxMessageLength: config.maxMessageLength,
    });
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    if (this.running) throw new Error("The Feishu channel is already started");
    const { config, log } = this.opts;
    const bot = await this.api.botInfo().catch((err: unknown) => {
      const reason = (err as Error).message;
      throw new Error(`Feishu: cannot fetch the bot's info with the configured app credentials: ${reason}`, { cause: err });
    });
    this.events.attach(onMessage, bot.openId);
    this.cards.attach(onPress);
    if (config.mode === "webhook") this.listenForWebhooks();
    else this.connectSocket();
    this.running = true;
    log.info({ bot: bot.name, botOpenId: bot.openId, mode: config.mode }, "Feishu channel started");
  }

  async stop(): Promise<void> {
    this.socket?.stop();
    this.socket = undefined;
    this.running = false;
    await this.events.detach();
    await this.cards.detach();
  }

  status(): ChannelStatus {
    if (!this.running) return { connected: false, detail: "not started" };
    if (this.socket) return this.socket.status();
    return { connected: true, detail: `webhook at ${this.opts.config.webhook.path}` };
  }

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.outbound.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    return this.outbound.sendFile(to, file, opts);
  }

  liveReply(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined {
    const { config, log } = this.opts;
    if (config.streaming === "off") return undefined;
    const cards = config.streaming === "card" && config.replyFormat === "card";
    const clock = this.opts.clock ?? systemClock;
    return new ThrottledLiveReply(feishuPresenter({ api: this.api, outbound: this.outbound, log, cards, clock }, to, opts), log, DEFAULT_THROTTLE, clock);
  }

  /** Feishu has no typing indicator: a reaction on the user's message is its sign of life. */
  async acknowledge(message: InboundMessage): Promise<() => Promise<void>> {
    const emoji = this.opts.config.ackReaction;
    if (emoji === null) return async () => {};
    const messageId = message.platformMessageId;
    const reactionId = await this.api.addReaction(messageId, emoji);
    return () => this.api.deleteReaction(messageId, reactionId);
  }

  download(attachment: Attachment, into: string): Promise<string> {
    return downloadAttachment(this.api, attachment, into);
  }

  private listenForWebhooks(): void {
    if (this.webhookRegistered) return;
    const { webhook } = this.opts.config;
    if (webhook.verificationToken === null) {
      throw new Error("channels.feishu.webhook.verificationToken is required in webhook mode");
    }
    registerWebhook(this.opts.http, {
      path: webhook.path,
      keys: { verificationToken: webhook.verificationToken, encryptKey: webhook.encryptKey },
      log: this.opts.log,
      running: () => this.running,
      accept: (payload) => this.events.accept(payload),
      answer: (payload) => (isCardAction(payload) ? this.cards.take(payload) : undefined),
    });
    this.webhookRegistered = true;
  }

  private connectSocket(): void {
    const { config, log } = this.opts;
    this.socket = new FeishuSocket({
      appId: config.appId,
      appSecret: config.appSecret,
      baseUrl: feishuBaseUrl(config.domain),
      log,
      // A card action's answer (toast, new card) travels back in the frame's acknowledgment.
      accept: (payload) => (isCardAction(payload) ? this.cards.take(payload) : this.events.accept(payload).then(() => undefined)),
    });
    this.socket.start();
  }
}
