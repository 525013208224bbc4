/**
 * One agent turn as the rest of the gateway sees it: what goes in, what comes out, and the port (TurnRunner)
 * through which the router and the scheduler ask for one without knowing the agent.
 */
import type { Speech } from "./i18n.js";
import type { Logger } from "pino";
import type { Attachment, InboundMessage } from "./types.js";
import type { ToolDefinition, ToolPermissions } from "./tools.js";
import type { ApprovalRoute, TurnTaint } from "./approval-context.js";

export interface TurnInput {
  sessionKey: string;
  message: InboundMessage;
  workspaceDir: string;
  signal: AbortSignal;
  /** The turn's logger, already naming its trace and session: the agent logs through it as it is. */
  log: Logger;
  traceId: string;
  /** Downloads an attachment and returns a local path (from the channel). */
  download?: (attachment: Attachment) => Promise<string>;
  /** Access policy hook: which tools this sender may see and call; default all (see permissions). */
  allowTool?: (tool: ToolDefinition) => boolean;
  /**
   * The risk classes the sender may use (from src/access): the model is sent, and can call, only the tools they
   * cover; a call to another tool is refused with the missing permission named. The tool context carries them
   * too, so the registry refuses anything beyond (a handler's own stricter check, a call from elsewhere).
   */
  permissions?: ToolPermissions;
  /** The person's language: the apologies are in it, and the prompt names it. English when absent. */
  speech?: Speech;
  /** Recent messages of the chat that were not addressed to the bot, given to the model as framed context. */
  earlierMessages?: EarlierChatMessage[];
  /**
   * The fencing token of the session's turn lock (see the router): the history refuses to save with a token older
   * than one that already saved, so a replica that lost the session (its lease ran out) cannot overwrite the turn
   * that took over. Absent: the history is written unchecked (scheduled turns of a task's own session).
   */
  fence?: number;
  /** Where the turn's approvals are asked when not in its chat from its sender (a scheduled run). */
  approval?: ApprovalRoute;
  /** A delegated turn's is its parent's, so that a helper neither starts clean nor hides what it took in. */
  taint?: TurnTaint;
  /** The agent that answers (an id of `agents`); absent: the default agent. */
  agentId?: string;
  /** Set for a helper's turn run by delegate_task: how deep it is and what bounds it. */
  delegation?: DelegatedTurn;
  /** What the turn's model calls are counted as (compaction aside): a person's message by default, or a scheduled task. */
  work?: "chat" | "task";
  /** Told what the turn shows while it runs (the reply as it grows, tool status); the final reply is the result. */
  onEvent?: (event: TurnEvent) => void;
}

/** The bounds of a helper's turn: a level below its parent, fewer steps, a token budget, a short history. */
export interface DelegatedTurn {
  /** 1 for a helper of a person's turn, 2 for a helper's helper... */
  depth: number;
  maxSteps: number;
  /** Input and output tokens of all its model calls together; it stops after the step that reaches them. */
  maxTokens: number;
  historyTokenBudget: number;
}

/**
 * What a running turn shows: `text` is the answer of the current model step so far (redacted of secrets, so it
 * can shrink or change: `delta` is set only when it grew by exactly that), `status` says which tool runs.
 */
export type TurnEvent = { type: "text"; text: string; delta?: string } | { type: "status"; text: string };

export interface TurnResult {
  text: string;
  errorId?: string;
  steps: number;
  toolCalls: string[];
  /** The turn stopped at the step limit before the model finished: it can be continued. */
  stepLimit?: boolean;
}

/** Runs agent turns; implemented by src/agent. */
export interface TurnRunner {
  runTurn(input: TurnInput): Promise<TurnResult>;
}

/** A voice or audio attachment's transcript, or why there is none (told to the model as it is). */
export type Transcription = { text: string } | { failure: string };

/** What the gateway's media step (src/media) did before the turn: downloads kept in the workspace, transcripts. */
export interface PreparedMedia {
  /** Downloads an attachment of the message into the workspace, once; returns its local path. */
  download(attachment: Attachment): Promise<string>;
  /** By attachment position; undefined for attachments that are not voice or audio. */
  transcripts: ReadonlyArray<Transcription | undefined>;
}

/** A group message the bot was not asked to answer, kept as context for the next message that is. */
export interface EarlierChatMessage {
  senderId: string;
  senderName?: string;
  text: string;
  /** ISO time the message was received. */
  sentAt: string;
}

/** Introduces the list of a message's attachments; get_chat_history finds them by it. */
export const ATTACHMENTS_HEADING = "Attachments (names are chosen by the sender):";
