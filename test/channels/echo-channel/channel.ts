/** The echo Channel: receives from the in-process platform through the shared inbox kit, sends back to it. */
import { MessageInbox } from "../../../src/channels/inbox.js";
import { chunkText } from "../../../src/core/text.js";
import { SendError } from "../../../src/core/send-error.js";
import type {
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  InboundHandler,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
} from "../../../src/core/types.js";
import type { Logger } from "../../../src/infra/log.js";
import type { Store } from "../../../src/infra/store/types.js";
import type { EchoConfig } from "./config.js";
import type { EchoPlatform, EchoPost } from "./platform.js";

export class EchoChannel implements Channel {
  readonly name = "echo";
  readonly capabilities: ChannelCapabilities;
  private readonly inbox: MessageInbox;
  private readonly handling = new Set<Promise<unknown>>();
  private handler: InboundHandler | undefined;

  constructor(
    private readonly settings: EchoConfig,
    private readonly platform: EchoPlatform,
    store: Store,
    private readonly log: Logger,
  ) {
    this.capabilities = {
      maxTextLength: settings.maxTextLength,
      maxUploadBytes: 0,
      edits: false,
      draftStreaming: false,
      reactions: false,
      buttons: false,
      threads: false,
      typing: false,
      voice: "any",
    };
    this.inbox = new MessageInbox(store, "echo-inbox");
  }

  async start(onMessage: InboundHandler): Promise<void> {
    this.handler = onMessage;
    this.platform.connect((post) => this.receive(post));
    this.track(this.inbox.replay(onMessage, this.log));
  }

  async stop(): Promise<void> {
    this.platform.disconnect();
    this.handler = undefined;
    await Promise.all(this.handling);
  }

  status(): ChannelStatus {
    return this.handler ? { connected: true } : { connected: false, detail: "not started" };
  }

  async sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const sent: SentMessage[] = [];
    for (const [index, part] of chunkText(text, { maxLength: this.settings.maxTextLength }).entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const answer = this.platform.accept(to.chatId, part);
      if ("kind" in answer) throw new SendError(`echo: sending to ${to.chatId} failed (${answer.kind})`, answer, { sent });
      sent.push({ messageId: answer.id, sentAt: new Date() });
    }
    return sent;
  }

  sendFile(_to: OutboundTarget, file: OutboundFile): Promise<SentMessage> {
    return Promise.reject(new SendError(`echo: ${file.name} not sent: the echo channel carries no files`, { kind: "rejected" }));
  }

  download(): Promise<string> {
    return Promise.reject(new Error("echo: messages carry no attachments"));
  }

  /** Acknowledged once recorded in the inbox; handled after, without holding the platform. */
  private async receive(post: EchoPost): Promise<void> {
    const handler = this.handler;
    if (!handler) throw new Error("echo channel not started");
    const message = {
      id: `echo:${post.id}`,
      platformMessageId: post.id,
      channel: this.name,
      chat: { id: post.chatId, type: "direct" as const },
      sender: { id: post.userId },
      text: post.text,
      attachments: [],
      mentionsBot: true,
      receivedAt: new Date(),
    };
    if (await this.inbox.record(message)) this.track(this.inbox.handle(message, handler, this.log));
  }

  private track(work: Promise<unknown>): void {
    this.handling.add(work);
    void work.finally(() => this.handling.delete(work));
  }
}
