/**
 * The Telegram channel: connects with getMe, then receives by long polling or by webhook, and sends through the
 * retrying API client. start() never waits on the network: the connection is made in the background and
 * status() tells how it goes, so an unreachable Telegram does not keep the rest of the gateway from starting.
 */
import { systemClock, type Clock } from "../../core/clock.js";
import type { Api } from "grammy";
import type { ReactionTypeEmoji } from "grammy/types";
import type { HttpServer } from "../../infra/http/server.js";
import { ENGLISH } from "../../infra/i18n/index.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import {
  targetOf,
  type Attachment,
  type ButtonPressHandler,
  type Channel,
  type CommandMenu,
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
import { ALLOWED_UPDATES, apiRootOf, botIdOf, createApi, derivedWebhookSecret, describeTelegramError, isTokenRefused, tokenRefused } from "./api.js";
import { backoffDelay, sleep } from "./backoff.js";
import type { TelegramConfig } from "./config.js";
import { downloadAttachment } from "./files.js";
import { ThrottledLiveReply } from "../live-reply.js";
import type { ChannelDeps } from "../module.js";
import { telegramPresenter, type TelegramLiveDeps } from "./live.js";
import { UpdateInbox } from "./inbox.js";
import { setCommandMenu } from "./menu.js";
import { pressOf } from "./presses.js";
import { ChannelStoppedError, UpdateIntake } from "./intake.js";
import type { BotIdentity } from "./normalize.js";
import { CAPTION_LIMIT, TelegramSender, TEXT_LIMIT, UPLOAD_LIMIT_BYTES } from "./send.js";
import { DEFAULT_POLLER_TIMING, Poller, type PollerTiming } from "./polling.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { registerWebhookRoute } from "./webhook.js";

export interface TelegramChannelOptions {
  settings: TelegramConfig;
  token: string;
  store: Store;
  log: Logger;
  http: HttpServer;
  /** Shorter waits for tests; the defaults suit Telegram. */
  retry?: Partial<RetryPolicy>;
  polling?: Partial<PollerTiming>;
  /** The clock of the live reply's throttle; tests give one that runs faster than real time. */
  clock?: Clock;
  /** The words of the channel's own notices, in the sender's language (ChannelDeps.speechOf); English when absent. */
  speechOf?: ChannelDeps<TelegramConfig>["speechOf"];
}

/** What one run of the channel holds, from start() to stop(). */
interface Session {
  stopping: AbortController;
  identity: Deferred<BotIdentity>;
  /** The background connection: getMe, then the webhook or the poll loop. */
  connecting?: Promise<void>;
  poller?: Poller;
}

export class TelegramChannel implements Channel {
  readonly name = "telegram" as const;
  readonly capabilities: ChannelCapabilities = {
    maxTextLength: TEXT_LIMIT,
    maxCaptionLength: CAPTION_LIMIT,
    maxUploadBytes: UPLOAD_LIMIT_BYTES,
    edits: true,
    draftStreaming: true,
    reactions: true,
    buttons: true,
    threads: true,
    typing: true,
    voice: "ogg-opus",
  };
  readonly singleConnection: string | undefined;
  private readonly api: Api;
  private readonly live: TelegramLiveDeps;
  private readonly sender: TelegramSender;
  private readonly intake: UpdateIntake;
  private readonly timing: PollerTiming;
  /** Where Telegram posts updates and the secret it proves itself with; undefined in polling mode. */
  private readonly webhook: { url: string; secret: string } | undefined;
  private session: Session | undefined;
  private handler: InboundHandler | undefined;
  private state: ChannelStatus = { connected: false, detail: "not started" };
  /** Hono cannot remove routes, so a restarted channel keeps the webhook route it registered first. */
  private routeRegistered = false;

  constructor(private readonly opts: TelegramChannelOptions) {
    const { settings, token, log } = opts;
    this.api = createApi({ token, apiRoot: settings.apiRoot, retry: { policy: { ...DEFAULT_RETRY_POLICY, ...opts.retry }, log } });
    this.sender = new TelegramSender(this.api, log);
    this.capabilities.streaming = settings.streaming;
    this.live = { sender: this.sender, api: this.api, previewApi: createApi({ token, apiRoot: settings.apiRoot }), log, clock: opts.clock ?? systemClock };
    this.timing = { ...DEFAULT_POLLER_TIMING, ...opts.polling };
    const { url, secretToken } = settings.webhook;
    // The config schema refuses webhook mode without a URL.
    if (settings.mode === "webhook" && url) this.webhook = { url, secret: secretToken ?? derivedWebhookSecret(token) };
    // Telegram answers a second long poll on one token with 409; every replica may receive webhooks.
    this.singleConnection = this.webhook ? undefined : `telegram:${botIdOf(token)}`;
    this.intake = new UpdateIntake({
      inbox: new UpdateInbox(opts.store, botIdOf(token)),
      log,
      handleEdits: settings.handleEdits,
      maxDownloadBytes: settings.maxDownloadBytes,
      identity: () => this.session?.identity.promise ?? Promise.reject(new ChannelStoppedError()),
      notify: (message, text) => this.notify(message, text),
      speechOf: async (message) => (opts.speechOf ? opts.speechOf(message) : ENGLISH),
      pressOf: (update) => pressOf(update, this.api),
    });
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    if (this.session) throw new Error("The Telegram channel is already started");
    this.handler = onMessage;
    this.intake.setHandler(onMessage, onPress);
    if (this.webhook) this.registerRoute(this.webhook);
    const session: Session = { stopping: new AbortController(), identity: deferred<BotIdentity>() };
    this.session = session;
    this.state = { connected: false, detail: "connecting" };
    session.connecting = this.connect(session).catch((err: unknown) => {
      this.opts.log.error({ err }, "the Telegram channel could not start receiving");
      this.state = { connected: false, detail: `not receiving: ${describeTelegramError(err)}` };
    });
  }

  async stop(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.handler = undefined;
    this.intake.setHandler(undefined);
    session.stopping.abort();
    session.identity.reject(new ChannelStoppedError());
    await session.connecting;
    await session.poller?.stop();
    await this.intake.idle();
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

  typing(to: OutboundTarget): Promise<void> {
    return this.sender.typing(to);
  }

  liveReply(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined {
    const mode = this.opts.settings.streaming;
    if (mode === "off") return undefined;
    const { draftRefreshMs, ...throttle } = this.opts.settings.streamingPace;
    const presenter = telegramPresenter(this.live, mode, to, opts, { intervalMs: throttle.intervalMs, draftRefreshMs });
    return new ThrottledLiveReply(presenter, this.opts.log, throttle, this.live.clock);
  }

  setCommandMenu(menu: CommandMenu): Promise<void> {
    return setCommandMenu(this.api, menu);
  }

  async acknowledge(message: InboundMessage): Promise<() => Promise<void>> {
    const emoji = this.opts.settings.ackReaction;
    if (emoji === null) return async () => {};
    const chatId = message.chat.id;
    const messageId = Number(message.platformMessageId);
    await this.api.setMessageReaction(chatId, messageId, [{ type: "emoji", emoji: emoji as ReactionTypeEmoji["emoji"] }]);
    return async () => {
      await this.api.setMessageReaction(chatId, messageId, []);
    };
  }

  download(attachment: Attachment, into: string): Promise<string> {
    const { token, settings } = this.opts;
    return downloadAttachment({ api: this.api, token, apiRoot: apiRootOf(settings.apiRoot), maxBytes: settings.maxDownloadBytes }, attachment, into);
  }

  private async connect(session: Session): Promise<void> {
    const { settings, log } = this.opts;
    const me = await this.keepTrying(session, "getMe", () => this.api.getMe());
    if (!me) return;
    session.identity.resolve({ id: me.id, username: me.username });
    log.info({ bot: `@${me.username}`, mode: settings.mode }, "Telegram bot connected");
    await this.intake.replay().catch((err: unknown) => log.error({ err }, "could not read the Telegram inbox; updates from the last run wait"));
    const { webhook } = this;
    if (webhook) {
      const set = await this.keepTrying(session, "setWebhook", () => this.api.setWebhook(webhook.url, { secret_token: webhook.secret, allowed_updates: ALLOWED_UPDATES }));
      if (set) this.state = { connected: true, detail: `webhook ${webhook.url}` };
      return;
    }
    // A webhook left from another setup would answer every getUpdates with 409.
    const deleted = await this.keepTrying(session, "deleteWebhook", () => this.api.deleteWebhook());
    if (!deleted) return;
    session.poller = new Poller({
      api: this.api,
      botId: botIdOf(this.opts.token),
      log,
      timeoutSec: settings.pollTimeoutSec,
      receive: (update) => this.intake.receive(update),
      onStatus: (status) => (this.state = status),
      timing: this.timing,
    });
    session.poller.start();
  }

  /** Runs `call` until it succeeds, backing off; undefined when the channel stops first or the token is refused. */
  private async keepTrying<T>(session: Session, method: string, call: () => Promise<T>): Promise<T | undefined> {
    for (let failures = 1; !session.stopping.signal.aborted; failures++) {
      try {
        const result = await call();
        return session.stopping.signal.aborted ? undefined : result;
      } catch (err) {
        if (session.stopping.signal.aborted) break;
        if (isTokenRefused(err)) {
          this.state = tokenRefused(this.opts.log);
          return undefined;
        }
        const waitMs = backoffDelay(this.timing.backoff, failures);
        const reason = describeTelegramError(err);
        this.opts.log.warn({ method, attempt: failures, retryInMs: waitMs, reason }, "Telegram connection failed; retrying");
        this.state = { connected: false, detail: `${method} failing: ${reason}` };
        await sleep(waitMs, session.stopping.signal);
      }
    }
    return undefined;
  }

  private registerRoute(webhook: { url: string; secret: string }): void {
    if (this.routeRegistered) return;
    registerWebhookRoute({
      http: this.opts.http,
      log: this.opts.log,
      path: new URL(webhook.url).pathname,
      secret: webhook.secret,
      receiver: () => (this.handler ? (body) => this.intake.receive(body) : undefined),
    });
    this.routeRegistered = true;
  }

  private async notify(message: InboundMessage, text: string): Promise<void> {
    await this.sender.sendText(targetOf(message), text, { replyTo: message.platformMessageId });
  }
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting when the channel stops before getMe answered.
  promise.catch(() => {});
  return { promise, resolve, reject };
}
