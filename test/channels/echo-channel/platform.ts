/**
 * The echo channel's "platform": an in-process message bus. People post to the bot, the bot's messages are kept,
 * and a test can make the next sends fail the way a platform would (SendError kinds).
 */
import { EventEmitter } from "node:events";
import type { SendFailure } from "../../../src/core/send-error.js";

export interface EchoPost {
  id: string;
  chatId: string;
  userId: string;
  text: string;
}

export interface EchoSent {
  id: string;
  chatId: string;
  text: string;
}

export class EchoPlatform extends EventEmitter {
  readonly sent: EchoSent[] = [];
  private readonly failures: SendFailure[] = [];
  private nextId = 1;
  /** The connected bot's receiver; resolves once the post is acknowledged. */
  private receiver: ((post: EchoPost) => Promise<void>) | undefined;

  connect(receiver: (post: EchoPost) => Promise<void>): void {
    this.receiver = receiver;
  }

  disconnect(): void {
    this.receiver = undefined;
  }

  /** A person writes to the bot; resolves when the bot acknowledged it. */
  async post(chatId: string, userId: string, text: string): Promise<EchoPost> {
    if (!this.receiver) throw new Error("echo platform: no bot connected");
    const post = { id: `p${this.nextId++}`, chatId, userId, text };
    await this.receiver(post);
    return post;
  }

  failNext(failure: SendFailure): void {
    this.failures.push(failure);
  }

  /** The bot sends; answers the failure queued for this send, if any. */
  accept(chatId: string, text: string): EchoSent | SendFailure {
    const failure = this.failures.shift();
    if (failure) return failure;
    const sent = { id: `s${this.nextId++}`, chatId, text };
    this.sent.push(sent);
    this.emit("sent", sent);
    return sent;
  }
}

/** The one platform of this process, as a real platform is one for every bot instance. */
export const echoPlatform = new EchoPlatform();
