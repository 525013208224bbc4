/**
 * The WhatsApp channel (Cloud API): notifications arrive by webhook and are stored before Meta gets its 200, then
 * handed over; replies, files, buttons, read receipts and "typing…" go out through the Graph API. WhatsApp has
 * no edits, so replies are sent whole (no live preview).
 */
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import { safeFileName } from "../../core/file-names.js";
import type {
  Attachment,
  ButtonPressHandler,
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  InboundHandler,
  InboundMessage,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
} from "../../core/types.js";
import type { HttpServer } from "../../infra/http/server.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { BackgroundWork } from "../background.js";
import { downloadInto } from "../download.js";
import { MessageInbox } from "../inbox.js";
import { GraphApi, GraphError, REENGAGEMENT_CODE } from "./api.js";
import { WEBHOOK_PATH, type WhatsAppSettings } from "./config.js";
import { readNotification, type InteractiveReply, type Notification, type PlatformError } from "./normalize.js";
import { CAPTION_LIMIT, TEXT_LIMIT, UPLOAD_LIMIT_BYTES, WhatsAppSender } from "./send.js";
import { registerWebhook } from "./webhook.js";
import { ServiceWindow } from "./window.js";

export interface WhatsAppChannelOptions {
  settings: WhatsAppSettings;
  store: Store;
  log: Logger;
  http: HttpServer;
  /** The time the 24-hour window is measured by; tests move it. */
  now?: () => number;
}

/** Interactive replies Meta may deliver twice; a press is acted on once. */
const REMEMBERED_PRESSES = 1_000;

export class WhatsAppChannel implements Channel {
  readonly name = "whatsapp" as const;
  readonly capabilities: ChannelCapabilities = {
    maxTextLength: TEXT_LIMIT,
    maxCaptionLength: CAPTION_LIMIT,
    maxUploadBytes: UPLOAD_LIMIT_BYTES,
    edits: false,
    draftStreaming: false,
    reactions: true,
    buttons: true,
    threads: false,
    typing: true,
    voice: "ogg-opus",
    streaming: "off",
  };
  private readonly api: GraphApi;
  private readonly sender: WhatsAppSender;
  private readonly inbox: MessageInbox;
  private readonly window: ServiceWindow;
  private readonly now: () => number;
  private readonly presses = new LRUCache<string, true>({ max: REMEMBERED_PRESSES });
  /** The newest message of each person, for "typing…" (WhatsApp ties it to a received message). */
  private readonly lastMessage = new LRUCache<string, string>({ max: 10_000 });
  private readonly background: BackgroundWork;
  private handlers: { onMessage: InboundHandler; onPress: ButtonPressHandler | undefined } | undefined;
  private state: ChannelStatus = { connected: false, detail: "not started" };
  /** Hono cannot remove routes, so a restarted channel keeps the routes it registered first. */
  private routeRegistered = false;

  constructor(private readonly opts: WhatsAppChannelOptions) {
    const { settings, store, log } = opts;
    this.background = new BackgroundWork(log, "WhatsApp background work");
    this.now = opts.now ?? Date.now;
    this.api = new GraphApi({ apiUrl: settings.apiUrl, accessToken: settings.accessToken });
    this.window = new ServiceWindow(store, settings.phoneNumberId, this.now);
    this.sender = new WhatsAppSender({ api: this.api, settings, window: this.window, log });
    this.inbox = new MessageInbox(store, `whatsapp-inbox:${settings.phoneNumberId}`);
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    if (this.handlers) throw new Error("The WhatsApp channel is already started");
    const { settings, log, http } = this.opts;
    this.handlers = { onMessage, onPress };
    if (!this.routeRegistered) {
      registerWebhook({ http, appSecret: settings.appSecret, verifyToken: settings.verifyToken, log, receiver: () => (this.handlers ? (body) => this.receive(body) : undefined) });
      this.routeRegistered = true;
    }
    this.state = { connected: false, detail: "checking the access token" };
    this.background.track(this.connect());
    this.background.track(this.inbox.replay(onMessage, log));
  }

  async stop(): Promise<void> {
    this.handlers = undefined;
    await this.background.idle();
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
    const messageId = this.lastMessage.get(to.chatId);
    if (messageId !== undefined && this.opts.settings.readReceipts) await this.sender.markRead(messageId, true);
  }

  async acknowledge(message: InboundMessage): Promise<() => Promise<void>> {
    const { ackReaction } = this.opts.settings;
    if (ackReaction === null) return async () => {};
    await this.sender.react(message.chat.id, message.platformMessageId, ackReaction);
    return () => this.sender.react(message.chat.id, message.platformMessageId, "");
  }

  /** Media ids resolve to a short-lived URL, fetched with the same token. */
  async download(attachment: Attachment, into: string): Promise<string> {
    const label = `the ${attachment.kind} from WhatsApp`;
    const media = await this.api.call<{ url?: string; file_size?: number }>("GET", encodeURIComponent(attachment.ref)).catch((err: unknown) => {
      throw new Error(`WhatsApp: looking up ${label} failed: ${(err as Error).message}`, { cause: err });
    });
    if (typeof media.url !== "string") throw new Error(`WhatsApp gave no download URL for ${label}`);
    const name = safeFileName(attachment.name ?? `${attachment.kind}-${attachment.ref}`);
    return downloadInto(media.url, { headers: this.api.auth() }, join(into, name), label, this.opts.settings.maxDownloadBytes);
  }

  /** Stores the messages of one notification (before the 200), then hands them over in the background. */
  private async receive(body: Parameters<typeof readNotification>[0]): Promise<void> {
    const handlers = this.handlers;
    if (!handlers) return;
    const notification = readNotification(body, this.opts.settings.phoneNumberId, new Date(this.now()));
    this.report(notification);
    const fresh: InboundMessage[] = [];
    for (const message of notification.messages) {
      if (await this.inbox.record(message)) fresh.push(message);
      await this.window.opened(message.sender.id, sentAtOf(message) ?? this.now());
      this.lastMessage.set(message.chat.id, message.platformMessageId);
    }
    for (const message of fresh) {
      // Blue ticks at once: the person sees the message arrived, whatever the turn does.
      if (this.opts.settings.readReceipts) this.background.track(this.sender.markRead(message.platformMessageId, false));
      this.background.track(this.inbox.handle(message, handlers.onMessage, this.opts.log));
    }
    for (const reply of notification.replies) {
      await this.window.opened(reply.from);
      if (!this.presses.has(reply.id)) this.background.track(this.press(reply, handlers.onPress));
      this.presses.set(reply.id, true);
    }
  }

  private async press(reply: InteractiveReply, onPress: ButtonPressHandler | undefined): Promise<void> {
    if (!onPress) {
      this.opts.log.debug({ chatId: reply.from }, "a WhatsApp button reply arrived with no press handler; dropped");
      return;
    }
    const chat = { id: reply.from, type: "direct" as const };
    await onPress({
      channel: "whatsapp",
      id: reply.id,
      chat,
      sender: { id: reply.from, ...(reply.name !== undefined ? { name: reply.name } : {}) },
      actionId: reply.actionId,
      messageId: reply.messageId,
      receivedAt: new Date(this.now()),
      // WhatsApp has no toast and no editing: a notice is a message; the buttons stay.
      answer: async ({ notice }) => {
        if (notice !== undefined) await this.sender.sendText({ channel: "whatsapp", chatId: chat.id }, notice, { replyTo: reply.id });
      },
    });
  }

  private report(notification: Notification): void {
    const { log } = this.opts;
    for (const skipped of notification.skipped) log.debug({ skipped }, "WhatsApp notification entry skipped");
    for (const status of notification.statuses) {
      if (status.status !== "failed") continue;
      for (const error of status.errors ?? [{ code: 0, title: "no reason given" }]) {
        log.warn({ messageId: status.id, chatId: status.recipient_id, code: error.code, details: error.error_data?.details }, describeFailure(error));
      }
    }
    for (const error of notification.errors) log.error({ code: error.code, details: error.error_data?.details }, `WhatsApp reported an error: ${error.title ?? error.message ?? "unknown"}`);
  }

  private async connect(): Promise<void> {
    try {
      const phone = await this.api.call<{ display_phone_number?: string }>("GET", `${this.opts.settings.phoneNumberId}?fields=display_phone_number,verified_name`);
      this.state = { connected: true, detail: `webhook at ${WEBHOOK_PATH} for ${phone.display_phone_number ?? this.opts.settings.phoneNumberId}` };
    } catch (err) {
      const refused = err instanceof GraphError && err.tokenRefused;
      this.opts.log.error({ err }, refused ? "WhatsApp refused the access token" : "could not reach the WhatsApp Cloud API");
      this.state = { connected: false, detail: refused ? "the access token was refused (WHATSAPP_ACCESS_TOKEN)" : `Graph API unreachable: ${(err as Error).message}` };
    }
  }

}

/** What a failed status means, in words an operator acts on. */
function describeFailure(error: PlatformError): string {
  if (error.code === REENGAGEMENT_CODE) {
    return "WhatsApp refused a message: more than 24 hours since the person last wrote, so only approved templates go through; set channels.whatsapp.templates.reminder to an approved template";
  }
  return `WhatsApp could not deliver a message: ${error.title ?? error.message ?? "unknown error"}`;
}

function sentAtOf(message: InboundMessage): number | undefined {
  const timestamp = (message.raw as { timestamp?: string } | undefined)?.timestamp;
  return timestamp !== undefined ? Number(timestamp) * 1000 : undefined;
}
