/**
 * What a turn has done so far, kept outside the turn's try so that a failed or stopped turn can still be saved,
 * and the forms it is kept in: the history's messages, the session log's entry, the notices after the reply.
 */
import type { ModelMessage } from "ai";
import type { TurnInput } from "../core/turn.js";
import type { SessionRecord } from "../sessions/history.js";
import type { ToolCallLog, TurnLogEntry } from "../sessions/turn-log.js";
import { withRefusalWords, type Refusals } from "./refusal-words.js";

export interface TurnProgress {
  /** The session record once loaded (and compacted). */
  record: SessionRecord | undefined;
  /** The record's disclosed tools, plus those whose full definition this turn showed. */
  disclosedTools: Set<string>;
  steps: number;
  toolCalls: string[];
  /** Each tool call's result and duration, for the session log. */
  calls: ToolCallLog[];
  /** The calls the repairer refused, with the words the model reads (refusal-words.ts). */
  refusals: Refusals;
  startedAt: Date;
  /** performance.now() at the start. */
  started: number;
  /** The response messages of the finished steps. */
  stepMessages: ModelMessage[];
  /** Budget warnings for the person (from model calls and tools), shown after the reply. */
  notices: string[];
}

export function startProgress(startedAt: Date): TurnProgress {
  return {
    record: undefined,
    disclosedTools: new Set(),
    steps: 0,
    toolCalls: [],
    calls: [],
    refusals: new Map(),
    stepMessages: [],
    notices: [],
    startedAt,
    started: performance.now(),
  };
}

/** Steps' response messages as the history keeps them: refusals in their own words, plain answers as strings. */
export function historyMessages(messages: ModelMessage[], progress: TurnProgress): ModelMessage[] {
  return withRefusalWords(messages, progress.refusals).map(plainTextReply);
}

/** The turn's entry for get_session_logs. */
export function turnLogEntry(input: TurnInput, progress: TurnProgress, result: Pick<TurnLogEntry, "outcome" | "errorId">): TurnLogEntry {
  return {
    traceId: input.traceId,
    startedAt: progress.startedAt.toISOString(),
    durationMs: Math.round(performance.now() - progress.started),
    steps: progress.steps,
    toolCalls: progress.calls,
    ...result,
  };
}

export function withNotices(text: string, progress: TurnProgress): string {
  return progress.notices.length === 0 ? text : [text, ...progress.notices].join("\n\n");
}

/**
 * An answer that is one plain text part, kept as a string: the same message to every provider, and the AI SDK
 * validates the whole history on every call, strings in about half the time of part lists.
 */
function plainTextReply<M extends ModelMessage>(message: M): M {
  if (message.role !== "assistant" || typeof message.content === "string" || message.providerOptions) return message;
  const [only, ...rest] = message.content;
  if (rest.length > 0 || only?.type !== "text" || only.providerOptions) return message;
  return { ...message, content: only.text } as M;
}
