/**
 * The DingTalk (钉钉) channel: robot messages arrive over the Stream connection (one per app, so under the replica
 * lease), are recorded before they are acknowledged, and are answered through the session webhook or the robot
 * send APIs; live replies stream into an AI card when a card template is configured.
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
  InboundMessage,
  LiveReply,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
} from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { BackgroundWork } from "../background.js";
import { MessageInbox } from "../inbox.js";
import { ThrottledLiveReply } from "../live-reply.js";
import { DingtalkApi } from "./api.js";
import { pressedAction } from "./buttons.js";
import { AiCardPresenter } from "./card.js";
import type { DingtalkSettings } from "./config.js";
import { chatIdOf, robotMessageSchema, toInboundMessage } from "./normalize.js";
import { DingtalkSender, MAX_UPLOAD_BYTES } from "./send.js";
import type { Backoff } from "../reconnect.js";
import { DingtalkStream, ROBOT_TOPIC, type StreamFrame } from "./stream.js";

export interface DingtalkChannelOptions {
  settings: DingtalkSettings;
  store: Store;
  log: Logger;
  /** Tests shorten the reconnect waits. */
  backoff?: Backoff;
}

export class DingtalkChannel implements Channel {
  readonly name = "dingtalk" as const;
  readonly capabilities: ChannelCapabilities;
  readonly singleConnection: string;
  private readonly api: DingtalkApi;
  private readonly sender: DingtalkSender;
  private readonly inbox: MessageInbox;
  private stream: DingtalkStream | undefined;
  private handler: InboundHandler | undefined;
  private onPress: ButtonPressHandler | undefined;
  private readonly background: BackgroundWork;

  constructor(private readonly opts: DingtalkChannelOptions) {
    const { settings, store, log } = opts;
    this.background = new BackgroundWork(log, "DingTalk background work");
    const streaming = settings.cardTemplateId !== null;
    this.capabilities = {
      maxTextLength: settings.maxMessageLength,
      maxUploadBytes: MAX_UPLOAD_BYTES,
      edits: false,
      draftStreaming: streaming,
      reactions: false,
      buttons: true,
      threads: false,
      typing: false,
      voice: "audio-file",
      streaming: streaming ? "draft" : "off",
    };
    this.singleConnection = `dingtalk:${settings.clientId}`;
    this.api = new DingtalkApi({ apiUrl: settings.apiUrl, oapiUrl: settings.oapiUrl, clientId: settings.clientId, clientSecret: settings.clientSecret });
    this.sender = new DingtalkSender({
      api: this.api,
      robotCode: settings.robotCode,
      format: settings.replyFormat,
      maxMessageLength: settings.maxMessageLength,
      webhookOrigin: settings.oapiUrl,
      log,
    });
    this.inbox = new MessageInbox(store, `dingtalk-inbox:${settings.clientId}`);
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    const { settings, log } = this.opts;
    this.handler = onMessage;
    this.onPress = onPress;
    this.stream = new DingtalkStream({
      apiUrl: settings.apiUrl,
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      topics: [ROBOT_TOPIC],
      log,
      onCallback: (frame) => this.receive(frame),
      ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}),
    });
    try {
      await this.stream.start();
    } catch (err) {
      this.handler = undefined;
      throw err;
    }
    this.background.track(this.inbox.replay(onMessage, log));
    log.info({ clientId: settings.clientId }, "DingTalk channel started");
  }

  async stop(): Promise<void> {
    this.stream?.stop();
    this.stream = undefined;
    this.handler = undefined;
    this.onPress = undefined;
    await this.background.idle();
  }

  status(): ChannelStatus {
    return this.stream?.status() ?? { connected: false, detail: "not started" };
  }

  /** Stream connections made so far. */
  connections(): number {
    return this.stream?.connections ?? 0;
  }

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.sender.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile): Promise<SentMessage> {
    return this.sender.sendFile(to, file);
  }

  liveReply(to: OutboundTarget): LiveReply | undefined {
    const { settings, log } = this.opts;
    if (settings.cardTemplateId === null) return undefined;
    const card = { api: this.api, sender: this.sender, templateId: settings.cardTemplateId, contentKey: settings.cardContentKey, robotCode: settings.robotCode };
    return new ThrottledLiveReply(new AiCardPresenter(card, to), log);
  }

  async download(attachment: Attachment, into: string): Promise<string> {
    const { robotCode } = this.opts.settings;
    const answer = await this.api.call("POST", "/v1.0/robot/messageFiles/download", { downloadCode: attachment.ref, robotCode });
    const url = z.object({ downloadUrl: z.url() }).parse(answer).downloadUrl;
    await mkdir(into, { recursive: true });
    const name = attachment.name?.replace(/[/\\]/g, "_") ?? `${attachment.kind}-${Date.now()}${attachment.kind === "image" ? ".png" : ""}`;
    const path = join(into, name);
    await writeFile(path, await this.api.bytes(url));
    return path;
  }

  /** A button's marker text: handed over once as a press, never as a message. */
  private async press(message: InboundMessage, actionId: string): Promise<void> {
    const onPress = this.onPress;
    if (!onPress || !(await this.opts.store.coordinator.setIfAbsent(`dingtalk:press:${message.id}`, 24 * 3_600_000))) return;
    this.background.track(
      onPress({
        channel: "dingtalk",
        id: message.id,
        chat: message.chat,
        sender: message.sender,
        actionId,
        messageId: "",
        receivedAt: message.receivedAt,
        // An ActionCard stays as sent: the press has nothing to answer on DingTalk's side.
        answer: async () => {},
      }),
    );
  }

  /** A robot callback: recorded (then the Stream acknowledges it) and handed over afterwards. */
  private async receive(frame: StreamFrame): Promise<void> {
    const { log } = this.opts;
    let data: unknown;
    try {
      data = JSON.parse(frame.data ?? "");
    } catch {
      log.warn({ messageId: frame.headers.messageId }, "ignored a DingTalk robot callback whose data is not JSON");
      return;
    }
    const parsed = robotMessageSchema.safeParse(data);
    if (!parsed.success) {
      log.warn({ messageId: frame.headers.messageId, problems: z.prettifyError(parsed.error) }, "ignored a malformed DingTalk robot message");
      return;
    }
    const handler = this.handler;
    if (!handler) throw new Error("the DingTalk channel is stopped");
    this.sender.rememberWebhook(chatIdOf(parsed.data), parsed.data.sessionWebhook, parsed.data.sessionWebhookExpiredTime);
    const message = toInboundMessage(parsed.data);
    const actionId = pressedAction(message.text);
    if (actionId !== undefined) return this.press(message, actionId);
    // Recorded already: a redelivery (maybe under a new push id) of a message being handled.
    if (!(await this.inbox.record(message))) return;
    const child = log.child({ messageId: message.id, chatId: message.chat.id });
    this.background.track(this.inbox.handle(message, handler, child).then((outcome) => child.debug({ outcome }, "DingTalk message handled")));
  }

}
