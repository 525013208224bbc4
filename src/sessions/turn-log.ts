/**
 * The recent turns of each session, for get_session_logs: which tools ran, how long they took, what failed and
 * the error id a user was given. Only names, codes and (redacted, shortened) error messages are kept, never tool
 * input or output, so the log holds nothing a chat did not already show.
 */
import { z } from "zod";
import type { Namespace, Store } from "../infra/store/types.js";

/** How many turns a session keeps; older ones drop off. */
export const TURNS_KEPT = 20;
const ERROR_CHARS = 300;

const toolCallLogSchema = z.object({
  tool: z.string(),
  ok: z.boolean(),
  code: z.string().optional(),
  error: z.string().optional(),
  durationMs: z.number(),
});

const turnLogEntrySchema = z.object({
  traceId: z.string(),
  /** ISO time the turn started. */
  startedAt: z.string(),
  durationMs: z.number(),
  /** Model round trips. */
  steps: z.number(),
  outcome: z.enum(["answered", "step_limit", "failed"]),
  errorId: z.string().optional(),
  toolCalls: z.array(toolCallLogSchema),
});

export type ToolCallLog = z.infer<typeof toolCallLogSchema>;
export type TurnLogEntry = z.infer<typeof turnLogEntrySchema>;

const storedSchema = z.array(turnLogEntrySchema);

export class TurnLog {
  private readonly records: Namespace<unknown>;

  constructor(store: Store) {
    this.records = store.namespace<unknown>("sessions");
  }

  async append(sessionKey: string, entry: TurnLogEntry): Promise<void> {
    const kept = await this.recent(sessionKey, TURNS_KEPT - 1);
    const trimmed = { ...entry, toolCalls: entry.toolCalls.map(shortenError) };
    await this.records.set(keyOf(sessionKey), [...kept, trimmed]);
  }

  /** Up to `limit` turns of the session, oldest first; a record that no longer validates reads as empty. */
  async recent(sessionKey: string, limit: number): Promise<TurnLogEntry[]> {
    const parsed = storedSchema.safeParse(await this.records.get(keyOf(sessionKey)));
    if (!parsed.success || limit <= 0) return [];
    return parsed.data.slice(-limit);
  }

  async reset(sessionKey: string): Promise<void> {
    await this.records.delete(keyOf(sessionKey));
  }
}

// Beside the session's transcript in the same namespace; no session key contains "#".
function keyOf(sessionKey: string): string {
  return `${sessionKey}#turns`;
}

function shortenError(call: ToolCallLog): ToolCallLog {
  if (call.error === undefined || call.error.length <= ERROR_CHARS) return call;
  return { ...call, error: `${call.error.slice(0, ERROR_CHARS - 1)}…` };
}
