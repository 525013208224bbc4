/**
 * The WeCom (企业微信) channel: a self-built application's encrypted callback brings private messages and card
 * button presses; replies, files and reminders go out through the message API (and the app group chat API for
 * chats `appchat:<chatid>`, which are send-only).
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
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
import { WecomApi } from "./api.js";
import { registerCallback } from "./callback.js";
import type { WecomSettings } from "./config.js";
import { readMessage, toInboundMessage, type WecomEvent } from "./normalize.js";
import { CardPresses } from "./presses.js";
import { MAX_UPLOAD_BYTES, WecomSender } from "./send.js";
import { amrToOgg } from "./voice.js";

export interface WecomChannelOptions {
  settings: WecomSettings;
  store: Store;
  log: Logger;
  http: HttpServer;
  /** Injectable clock for the access token's lifetime. */
  now?: () => number;
}

export class WecomChannel implements Channel {
  readonly name = "wecom" as const;
  readonly capabilities: ChannelCapabilities = {
    maxTextLength: 2_048,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    edits: false,
    draftStreaming: false,
    reactions: false,
    buttons: true,
    threads: false,
    typing: false,
    voice: "audio-file",
  };
  readonly api: WecomApi;
  private readonly sender: WecomSender;
  private readonly inbox: MessageInbox;
  private readonly presses: CardPresses;
  private handler: InboundHandler | undefined;
  private readonly background: BackgroundWork;
  /** Hono cannot remove routes, so a restarted channel keeps the ones it registered first. */
  private registered = false;

  constructor(private readonly opts: WecomChannelOptions) {
    const { settings, store, log } = opts;
    this.background = new BackgroundWork(log, "WeCom background work");
    this.api = new WecomApi({ baseUrl: settings.apiUrl, corpId: settings.corpId, corpSecret: settings.corpSecret, ...(opts.now ? { now: opts.now } : {}) });
    this.presses = new CardPresses({ api: this.api, agentId: settings.agentId, store, log });
    this.sender = new WecomSender({ api: this.api, agentId: settings.agentId, format: settings.replyFormat, log });
    this.inbox = new MessageInbox(store, `wecom-inbox:${settings.corpId}:${settings.agentId}`);
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    const { settings, log, http } = this.opts;
    this.handler = onMessage;
    this.presses.attach(onPress);
    if (!this.registered) {
      registerCallback(http, {
        path: settings.callbackPath,
        keys: { token: settings.token, aesKey: settings.aesKey, corpId: settings.corpId },
        log,
        receiver: () => (this.handler ? (plaintext) => this.receive(plaintext) : undefined),
      });
      this.registered = true;
    }
    this.background.track(this.inbox.replay(onMessage, log));
    log.info({ agentId: settings.agentId, path: settings.callbackPath }, "WeCom channel started");
  }

  async stop(): Promise<void> {
    this.handler = undefined;
    this.presses.attach(undefined);
    await this.background.idle();
  }

  status(): ChannelStatus {
    if (!this.handler) return { connected: false, detail: "not started" };
    return { connected: true, detail: `callback at ${this.opts.settings.callbackPath}` };
  }

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.sender.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile): Promise<SentMessage> {
    return this.sender.sendFile(to, file);
  }

  async download(attachment: Attachment, into: string): Promise<string> {
    const { bytes } = await this.api.download(attachment.ref);
    await mkdir(into, { recursive: true });
    const stem = attachment.ref.replace(/[^\w-]/g, "").slice(0, 40) || "media";
    const path = join(into, attachment.name?.replace(/[/\\]/g, "_") ?? `${stem}${extensionOf(attachment)}`);
    await writeFile(path, bytes);
    if (attachment.kind !== "voice") return path;
    const converted = join(into, `${stem}.ogg`);
    try {
      await amrToOgg(path, converted);
    } catch (err) {
      this.opts.log.warn({ err, mediaId: attachment.ref }, "could not convert a WeCom voice message; passing the AMR file on");
      return path;
    }
    await rm(path, { force: true });
    return converted;
  }

  /** Records a decrypted callback before WeCom gets its answer; the turn runs afterwards. */
  private async receive(plaintext: string): Promise<void> {
    const { log } = this.opts;
    const read = readMessage(plaintext);
    if (!read.ok) {
      log.warn({ problems: read.problem }, "ignored a WeCom callback that is not a message WeCom documents");
      return;
    }
    if (read.message.MsgType === "event") return this.event(read.message);
    const message = toInboundMessage(read.message);
    const handler = this.handler;
    // A message already waiting is WeCom's retry of one being handled: answered, not handed over twice.
    if (!handler || !(await this.inbox.record(message))) return;
    const child = log.child({ messageId: message.id, chatId: message.chat.id });
    this.background.track(this.inbox.handle(message, handler, child).then((outcome) => child.debug({ outcome }, "WeCom message handled")));
  }

  private async event(event: WecomEvent): Promise<void> {
    if (event.Event === "template_card_event") {
      this.background.track(this.presses.take(event));
      return;
    }
    this.opts.log.debug({ event: event.Event }, "ignored a WeCom event the gateway does not handle");
  }

}

function extensionOf(attachment: Attachment): string {
  switch (attachment.kind) {
    case "image":
      return ".jpg";
    case "voice":
      return ".amr";
    case "video":
      return ".mp4";
    default:
      return "";
  }
}
