/**
 * What a chat's open tabs see, whichever replica they are connected to: frames go to this replica's sockets at
 * once and, when the store is shared by several replicas, over its message bus to the others (one topic for every
 * chat; each replica keeps the frames of chats it has sockets for). A reply to an API request travels along, so a
 * request waiting on one replica collects a reply sent by another (an outbox retry, a reminder's file).
 * On the one-process store nothing is published.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Logger } from "../../infra/log.js";
import type { MessageBus } from "../../infra/store/types.js";
import type { ChatHub } from "./hub.js";
import type { PendingReplies } from "./replies.js";
import type { ServerFrame } from "./schema.js";

const TOPIC = "web:frames";

/** Frames come from replicas of this very gateway; the envelope is checked, the frame is passed on as it came. */
const envelopeSchema = z.object({
  origin: z.string(),
  chatId: z.string(),
  frame: z.custom<ServerFrame>((value) => typeof value === "object" && value !== null && "type" in value),
  replyTo: z.string().optional(),
});
type Envelope = z.output<typeof envelopeSchema>;

export class ChatRelay {
  private readonly origin = randomUUID();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly bus: MessageBus,
    private readonly hub: ChatHub,
    private readonly pending: PendingReplies,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    if (!this.bus.crossesProcesses || this.unsubscribe) return;
    this.unsubscribe = await this.bus.subscribe(TOPIC, (message) => this.receive(message));
  }

  async stop(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch((err: unknown) => this.log.warn({ err }, "could not unsubscribe from the other replicas' chat frames"));
  }

  /** Shows `frame` in every tab of the chat; with `replyTo`, the frame (a message) answers that API request. */
  broadcast(chatId: string, frame: ServerFrame, replyTo?: string): void {
    this.show(chatId, frame, replyTo);
    if (!this.unsubscribe) return;
    const envelope: Envelope = { origin: this.origin, chatId, frame, ...(replyTo !== undefined ? { replyTo } : {}) };
    this.bus
      .publish(TOPIC, JSON.stringify(envelope))
      .catch((err: unknown) => this.log.warn({ err, chatId, frame: frame.type }, "could not pass a chat frame to the other replicas"));
  }

  private show(chatId: string, frame: ServerFrame, replyTo: string | undefined): void {
    this.hub.broadcast(chatId, frame);
    if (replyTo !== undefined && frame.type === "message") {
      this.pending.add(chatId, replyTo, { text: frame.text, attachments: frame.attachments });
    }
  }

  private receive(message: string): void {
    let envelope: Envelope;
    try {
      envelope = envelopeSchema.parse(JSON.parse(message));
    } catch (err) {
      this.log.warn({ err }, "a chat frame from another replica could not be read; dropped");
      return;
    }
    if (envelope.origin !== this.origin) this.show(envelope.chatId, envelope.frame, envelope.replyTo);
  }
}
