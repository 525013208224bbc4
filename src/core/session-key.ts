/** Which conversation a message belongs to: its history, its workspace and its turn queue. */
import { hash } from "node:crypto";
import { join } from "node:path";
import type { InboundMessage } from "./types.js";
import { DEFAULT_AGENT_ID } from "./agents.js";

export type SessionScope = "chat" | "user" | "thread";

export function sessionKeyOf(message: InboundMessage, scope: SessionScope): string {
  const chatKey = `${message.channel}:${message.chat.id}`;
  if (scope === "thread" && message.chat.threadId !== undefined) return `${chatKey}:thread:${message.chat.threadId}`;
  if (scope === "user" && message.chat.type === "group") return `${chatKey}:user:${message.sender.id}`;
  return chatKey;
}

/**
 * The session of `agentId` in the conversation `baseKey` (sessionKeyOf): the default agent keeps the key a gateway
 * without agents used, so existing histories are found; another agent's history is kept apart.
 */
export function agentSessionKey(baseKey: string, agentId: string): string {
  return agentId === DEFAULT_AGENT_ID ? baseKey : `${baseKey}:agent:${agentId}`;
}

/** A directory name for the session that is safe on every file system and still recognizable. */
export function workspaceDirOf(workspacesRoot: string, sessionKey: string): string {
  const readable = sessionKey.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
  // One-shot hash: a Hash object per turn cost more than the hashing.
  return join(workspacesRoot, `${readable}-${hash("sha256", sessionKey, "hex").slice(0, 10)}`);
}
