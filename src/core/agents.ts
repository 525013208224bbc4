/**
 * Several agents in one gateway, as ports: an agent's profile (its prompt, model, tools, skills, MCP servers,
 * memory and reply preferences) and the directory the router asks which agent answers a message. The agents
 * feature implements the directory; the router, the agent and the tools see only these types.
 */
import type { InboundMessage } from "./types.js";

/** The agent that serves whatever no routing rule sends elsewhere, and every chat when no agents are configured. */
export const DEFAULT_AGENT_ID = "default";

/** Where what an agent learns is kept: per person as without agents, apart per agent, or one pool of the agent. */
export type AgentMemoryMode = "person" | "agent" | "shared";

export interface AgentProfile {
  id: string;
  /** What it calls itself; null: the gateway's agent.name. */
  name: string | null;
  /** The operator's instructions for this agent, inside the gateway's own rules; null: none. */
  prompt: string | null;
  /** An entry of llm.models; null: the primary model. */
  model: string | null;
  /** Tool and handler names it may offer (narrowing the sender's permissions, never widening); null: all. */
  tools: readonly string[] | null;
  /** Skill names it may use; null: all. */
  skills: readonly string[] | null;
  /** MCP server ids it may use; null: all. */
  mcpServers: readonly string[] | null;
  memory: AgentMemoryMode;
  /** Whether replies stream into the chat as they grow; null: as the channel does. */
  liveReply: boolean | null;
  /** The language it answers in unless the user asks otherwise; null: the user's. */
  language: string | null;
  /** How many levels of helpers below a turn of this agent may run (delegate_task). */
  maxDelegationDepth: number;
}

/** A chat's current agent and the others its person may switch to there. */
export interface AgentChoice {
  agent: AgentProfile;
  /** The agents /agent may switch this chat to (the current one included); empty when routing allows no choice. */
  switchable: readonly AgentProfile[];
}

export interface AgentDirectory {
  /** Which agent answers `message`: the chat's own choice where routing allows one, else the first rule, else default. */
  choose(message: InboundMessage): Promise<AgentChoice>;
  /** The profile of `id`; undefined for an id that is not configured. */
  profile(id: string): AgentProfile | undefined;
  /** How many delegate_task calls of one step run at once. */
  readonly maxParallelDelegations: number;
}

/** The one agent of a gateway without `agents`: the gateway's own settings, everything allowed. */
export function defaultAgentProfile(): AgentProfile {
  return {
    id: DEFAULT_AGENT_ID,
    name: null,
    prompt: null,
    model: null,
    tools: null,
    skills: null,
    mcpServers: null,
    memory: "person",
    liveReply: null,
    language: null,
    maxDelegationDepth: 1,
  };
}

/** Whether the agent's tool allowlist (tool or handler names) covers a tool; no list covers all. */
export function agentOffers(agent: AgentProfile | undefined, tool: string, handler: string | undefined): boolean {
  const list = agent?.tools;
  return !list || list.includes(tool) || (handler !== undefined && list.includes(handler));
}
