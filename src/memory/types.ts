/** What a memory is, whose it is, and who is asking. */
import type { ChannelName } from "../core/types.js";
import type { AgentProfile } from "../core/agents.js";

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

/**
 * Whose memories a record belongs to: one person on one channel, or one group chat (kept apart per agent when that
 * agent's memory is its own: `agent`), or the one pool of an agent whose memory is shared by everyone it serves.
 */
export type MemoryOwner =
  | { kind: "user"; channel: ChannelName; userId: string; agent?: string }
  | { kind: "chat"; channel: ChannelName; chatId: string; agent?: string }
  | { kind: "agent"; agent: string };

/** Whose memories the agent of a turn works with; absent: the person's and the group's, as without agents. */
export type MemoryPartition = { mode: "agent" | "shared"; agent: string };

/**
 * Who is asking, taken from the message or tool context (never from what the model or the user typed): it alone
 * decides which memories can be read or changed.
 */
export interface Requester {
  channel: ChannelName;
  userId: string;
  chatId: string;
  chatType: "direct" | "group";
  /** The answering agent's own memory, when it keeps one (see MemoryPartition). */
  partition?: MemoryPartition;
}

export function userOwner(r: { channel: ChannelName; userId: string; partition?: MemoryPartition | undefined }): MemoryOwner {
  return { kind: "user", channel: r.channel, userId: r.userId, ...agentOf(r.partition) };
}

/** The partition of the agent answering; none for an agent that keeps memories per person (the default). */
export function partitionOf(agent: AgentProfile | undefined): MemoryPartition | undefined {
  return agent && agent.memory !== "person" ? { mode: agent.memory, agent: agent.id } : undefined;
}

function chatOwner(r: Requester): MemoryOwner {
  return { kind: "chat", channel: r.channel, chatId: r.chatId, ...agentOf(r.partition) };
}

function agentOf(partition: MemoryPartition | undefined): { agent?: string } {
  return partition?.mode === "agent" ? { agent: partition.agent } : {};
}

/** The owners a requester may read: always themselves, and in a group that chat's shared memories. */
export function ownersVisibleTo(r: Requester): MemoryOwner[] {
  if (r.partition?.mode === "shared") return [{ kind: "agent", agent: r.partition.agent }];
  const own = userOwner(r);
  return r.chatType === "group" ? [own, chatOwner(r)] : [own];
}

/** Where a new memory goes: scope "chat" in a direct chat is the person's own memory (nobody else is there). */
export function ownerFor(r: Requester, scope: MemoryScope): MemoryOwner {
  if (r.partition?.mode === "shared") return { kind: "agent", agent: r.partition.agent };
  return scope === "chat" && r.chatType === "group" ? chatOwner(r) : userOwner(r);
}

export function ownerKey(owner: MemoryOwner): string {
  if (owner.kind === "agent") return `agent:${owner.agent}`;
  const key = owner.kind === "user" ? `user:${owner.channel}:${owner.userId}` : `chat:${owner.channel}:${owner.chatId}`;
  // Without an agent the key is the one memories were always kept under.
  return owner.agent === undefined ? key : `agent:${owner.agent}:${key}`;
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
