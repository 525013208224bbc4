/**
 * Replies collected for API requests that wait for their message to be handled. Keyed by chat and
 * message id, so concurrent requests (of one chat or of several) each get only their own replies.
 */
import type { ApiReply } from "./schema.js";

export class PendingReplies {
  private readonly chats = new Map<string, Map<string, ApiReply[]>>();

  /** Starts collecting; undefined when a request for this very message is already waiting. */
  open(chatId: string, messageId: string): ApiReply[] | undefined {
    let waiting = this.chats.get(chatId);
    if (!waiting) this.chats.set(chatId, (waiting = new Map()));
    if (waiting.has(messageId)) return undefined;
    const replies: ApiReply[] = [];
    waiting.set(messageId, replies);
    return replies;
  }

  close(chatId: string, messageId: string): void {
    const waiting = this.chats.get(chatId);
    waiting?.delete(messageId);
    if (waiting?.size === 0) this.chats.delete(chatId);
  }

  add(chatId: string, replyTo: string, reply: ApiReply): void {
    this.chats.get(chatId)?.get(replyTo)?.push(reply);
  }

  /** The chat's longest-waiting request: the one its session queue handles first. */
  oldest(chatId: string): string | undefined {
    const waiting = this.chats.get(chatId);
    return waiting ? waiting.keys().next().value : undefined;
  }
}
