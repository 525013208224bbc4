/**
 * The QQ channel (the official bot platform): events over the WebSocket gateway (one session per bot, so under the
 * replica lease) or, by setting, a signed webhook; messages recorded before they are handed over; passive replies.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type {
  Attachment,
  ButtonPressHandler,
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  InboundHandler,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
} from "../../core/types.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { BackgroundWork } from "../background.js";
import { MessageInbox } from "../inbox.js";
import type { ChannelDeps } from "../module.js";
import { QqApi } from "./api.js";
import type { QqSettings } from "./config.js";
import type { Backoff } from "../reconnect.js";
import { QqGateway, type Dispatch } from "./gateway.js";
import { isMessageEvent, messageSchema, toInboundMessage } from "./normalize.js";
import { KeyboardPresses } from "./presses.js";
import { MAX_PART_CHARS, MAX_UPLOAD_BYTES, QqSender } from "./send.js";
import { REPLY_WINDOW_MINUTES } from "./seqs.js";
import { registerWebhook } from "./webhook.js";

/** Attachments are fetched only from QQ's media hosts (and the configured API's). */
const MEDIA_HOSTS = [/\.qq\.com$/, /\.qpic\.cn$/];

export interface QqChannelOptions {
  settings: QqSettings;
  store: Store;
  log: Logger;
  http: HttpServer;
  backoff?: Backoff;
  now?: () => number;
  /** The words of the channel's own notices (ChannelDeps.speechOf); English when absent. */
  speechOf?: ChannelDeps<QqSettings>["speechOf"];
}

export class QqChannel implements Channel {
  readonly name = "qq" as const;
  readonly capabilities: ChannelCapabilities;
  private readonly presses: KeyboardPresses;
  readonly singleConnection: string | undefined;
  readonly api: QqApi;
  private readonly sender: QqSender;
  private readonly inbox: MessageInbox;
  private gateway: QqGateway | undefined;
  private handler: InboundHandler | undefined;
  private registered = false;
  private readonly background: BackgroundWork;

  constructor(private readonly opts: QqChannelOptions) {
    const { settings, store, log } = opts;
    this.background = new BackgroundWork(log, "QQ background work");
    this.capabilities = {
      maxTextLength: MAX_PART_CHARS,
      maxUploadBytes: MAX_UPLOAD_BYTES,
      edits: false,
      draftStreaming: false,
      reactions: false,
      // Keyboards ride on Markdown messages.
      buttons: settings.markdown,
      threads: false,
      typing: false,
      voice: "audio-file",
      replyWindowMinutes: REPLY_WINDOW_MINUTES,
    };
    this.singleConnection = settings.mode === "websocket" ? `qq:${settings.appId}` : undefined;
    this.api = new QqApi({ apiUrl: settings.apiUrl, tokenUrl: settings.tokenUrl, appId: settings.appId, appSecret: settings.appSecret, ...(opts.now ? { now: opts.now } : {}) });
    const { speechOf } = opts;
    this.sender = new QqSender({
      api: this.api,
      store,
      markdown: settings.markdown,
      appId: settings.appId,
      log,
      ...(opts.now ? { now: opts.now } : {}),
      ...(speechOf ? { speech: () => speechOf() } : {}),
    });
    this.inbox = new MessageInbox(store, `qq-inbox:${settings.appId}`);
    this.presses = new KeyboardPresses({ api: this.api, store, log });
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    const { settings, log, http } = this.opts;
    this.handler = onMessage;
    this.presses.attach(onPress);
    if (settings.mode === "webhook") {
      if (!this.registered) {
        registerWebhook(http, { path: settings.webhookPath, appSecret: settings.appSecret, log, receiver: () => (this.handler ? (d) => this.receive(d) : undefined) });
        this.registered = true;
      }
    } else {
      this.gateway = new QqGateway({ api: this.api, log, onDispatch: (d) => this.receive(d), ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}) });
      try {
        await this.gateway.start();
      } catch (err) {
        this.handler = undefined;
        throw err;
      }
    }
    this.background.track(this.inbox.replay(onMessage, log));
    log.info({ appId: settings.appId, mode: settings.mode, sandbox: settings.sandbox }, "QQ channel started");
  }

  async stop(): Promise<void> {
    this.gateway?.stop();
    this.gateway = undefined;
    this.handler = undefined;
    this.presses.attach(undefined);
    await this.background.idle();
  }

  status(): ChannelStatus {
    if (!this.handler) return { connected: false, detail: "not started" };
    return this.gateway?.status() ?? { connected: true, detail: `webhook at ${this.opts.settings.webhookPath}` };
  }

  /** Identify and Resume counts of the gateway session. */
  sessions(): { identified: number; resumed: number } {
    return this.gateway?.sessions ?? { identified: 0, resumed: 0 };
  }

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.sender.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    return this.sender.sendFile(to, file, opts);
  }

  async download(attachment: Attachment, into: string): Promise<string> {
    const url = new URL(attachment.ref);
    const apiHost = new URL(this.opts.settings.apiUrl).host;
    if (url.host !== apiHost && !MEDIA_HOSTS.some((host) => host.test(url.hostname))) throw new Error(`QQ: refusing to download an attachment from ${url.host}`);
    const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    if (!response.ok) throw new Error(`QQ: downloading an attachment failed: HTTP ${response.status} from ${url.host}`);
    await mkdir(into, { recursive: true });
    const path = join(into, attachment.name?.replace(/[/\\]/g, "_") ?? `${attachment.kind}-${Date.now()}`);
    await writeFile(path, Buffer.from(await response.arrayBuffer()));
    return path;
  }

  /** A dispatched event: a message is recorded (the webhook then acknowledges it) and handed over afterwards. */
  private async receive(dispatch: Dispatch): Promise<void> {
    const { log } = this.opts;
    if (dispatch.type === "INTERACTION_CREATE") {
      this.background.track(this.presses.take(dispatch.data));
      return;
    }
    if (!isMessageEvent(dispatch.type)) {
      log.debug({ type: dispatch.type }, "ignored a QQ event the gateway does not handle");
      return;
    }
    const parsed = messageSchema.safeParse(dispatch.data);
    const message = parsed.success ? toInboundMessage(dispatch.type, parsed.data) : z.prettifyError(parsed.error);
    if (typeof message === "string") {
      log.warn({ type: dispatch.type, problem: message }, "ignored a malformed QQ message event");
      return;
    }
    const handler = this.handler;
    if (!handler) throw new Error("the QQ channel is stopped");
    // A redelivered event is already recorded (or, once handled, known to the router): no second turn.
    if (!(await this.inbox.record(message))) return;
    await this.sender.received(message.chat.id, message.platformMessageId, message.receivedAt);
    const child = log.child({ messageId: message.id, chatId: message.chat.id });
    this.background.track(this.inbox.handle(message, handler, child).then((outcome) => child.debug({ outcome }, "QQ message handled")));
  }

}
