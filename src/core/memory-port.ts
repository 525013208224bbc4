/**
 * What the agent needs from long-term memory, as a port: the composition root plugs the memory engine in, and
 * the agent never imports it. A turn recalls the sender's profile and the few memories relevant to the message.
 */
import type { InboundMessage } from "./types.js";
import type { Logger } from "pino";
import type { AgentProfile } from "./agents.js";

export interface RecalledMemory {
  id: string;
  kind: string;
  /** "user": the current sender's own; "chat": shared in this group. */
  scope: "user" | "chat";
  content: string;
  /** ISO time */
  createdAt: string;
}

export interface SenderProfile {
  /** Label and value, e.g. ["preferred language", "German"]; values are what the person said. */
  known: Array<[label: string, value: string]>;
  /** Labels of fields not known yet, and not declined. */
  unknown: string[];
  /** Labels of fields the person declined to give. */
  declined: string[];
}

export interface TurnRecall {
  memories: RecalledMemory[];
  /** Memories kept for the sender (and this group) in all; the prompt points to search_memory for the rest. */
  stored: number;
  profile: SenderProfile | null;
}

export interface ProposedMemory {
  kind: string;
  content: string;
}

export interface MemoryPort {
  /**
   * For the system prompt of a turn started by `message`: only the sender's and this chat's data, as `agent` keeps
   * them (its own, or its shared pool, per its memory setting).
   */
  recall(message: InboundMessage, log: Logger, agent?: AgentProfile): Promise<TurnRecall>;
  /** Keeps what compaction proposed as memories of the sender of `message`, where `agent` keeps them. */
  keepProposals?(message: InboundMessage, proposals: ProposedMemory[], log: Logger, agent?: AgentProfile): Promise<void>;
}
