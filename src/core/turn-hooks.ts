/**
 * What an agent turn asks of the features around it, as ports: the app collects them from the feature modules and
 * hands them to the agent, which never imports a feature.
 */
import type { Logger } from "pino";
import type { AgentDirectory } from "./agents.js";
import type { MemoryPort } from "./memory-port.js";
import type { ToolPermissions } from "./tools.js";
import type { PreparedMedia, TurnInput } from "./turn.js";
import type { UsagePort } from "./usage-port.js";

export interface TurnHooks {
  /** The "Skills" prompt section: the installed skills by name and description (only those named, when given). */
  skillsCatalog?: (only: readonly string[] | null) => string;
  /** The instructions of the skills a session equipped, for its system prompt. */
  equippedSkills?: (sessionKey: string) => Promise<string>;
  /** The "MCP Servers" prompt section for a sender with these permissions (only the servers named, when given). */
  mcpSection?: (permissions: ToolPermissions | undefined, only: readonly string[] | null) => string | undefined;
  /** Downloads and transcribes the message's media before the turn; without it images download directly. */
  prepareMedia?: (input: TurnInput, log: Logger) => Promise<PreparedMedia>;
  /** Long-term memory and the sender's profile, for the prompt; absent when memory is off. */
  memory?: MemoryPort;
  /** The configured agents and the routing between them; absent: one default agent. */
  agents?: AgentDirectory;
  /** Usage accounting and budgets: every model call of the turn asks it first and reports to it after. */
  usage?: UsagePort;
}
