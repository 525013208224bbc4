/** What a memory is, whose it is, and who is asking. */
import type { ChannelName } from "../core/types.js";

export const MEMORY_KINDS = ["fact", "preference", "event", "note"] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export const MEMORY_SCOPES = ["user", "chat"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** One remembered thing, as stored (plain JSON). */
export interface MemoryRecord {
  /** Short and typeable: /forget takes it. Unique within its owner. */
  id: string;
  kind: MemoryKind;
  content: string;
  scope: MemoryScope;
  /** Who asked for it to be kept (in a group, group memories are everyone's but their author's to delete). */
  author: { channel: ChannelName; userId: string };
  /** ISO time */
  createdAt: string;
  source: "tool" | "compaction";
  /** The content's embedding as base64 little-endian float32, when embeddings are configured. */
  vector?: string;
}

/** Whose memories a record belongs to: one person on one channel, or one group chat. */
export type MemoryOwner =
  | { kind: "user"; channel: ChannelName; userId: string }
  | { kind: "chat"; channel: ChannelName; chatId: string };

/**
 * Who is asking, taken from the message or tool context (never from what the model or the user typed): it alone
 * decides which memories can be read or changed.
 */
export interface Requester {
  channel: ChannelName;
  userId: string;
  chatId: string;
  chatType: "direct" | "group";
}

export function userOwner(r: { channel: ChannelName; userId: string }): MemoryOwner {
  return { kind: "user", channel: r.channel, userId: r.userId };
}

/** The owners a requester may read: always themselves, and in a group that chat's shared memories. */
export function ownersVisibleTo(r: Requester): MemoryOwner[] {
  const own = userOwner(r);
  return r.chatType === "group" ? [own, { kind: "chat", channel: r.channel, chatId: r.chatId }] : [own];
}

/** Where a new memory goes: scope "chat" in a direct chat is the person's own memory (nobody else is there). */
export function ownerFor(r: Requester, scope: MemoryScope): MemoryOwner {
  return scope === "chat" && r.chatType === "group" ? { kind: "chat", channel: r.channel, chatId: r.chatId } : userOwner(r);
}

export function ownerKey(owner: MemoryOwner): string {
  return owner.kind === "user" ? `user:${owner.channel}:${owner.userId}` : `chat:${owner.channel}:${owner.chatId}`;
}

export type MemoryErrorCode = "invalid" | "not_found" | "denied" | "limit";

/** A refusal the user or the model can act on (unknown id, over the cap, someone else's memory). */
export class MemoryError extends Error {
  constructor(
    message: string,
    readonly code: MemoryErrorCode,
  ) {
    super(message);
    this.name = "MemoryError";
  }
}
