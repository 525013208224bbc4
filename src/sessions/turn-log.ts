/**
 * The recent turns of each session, for get_session_logs: which tools ran, how long they took, what failed and
 * the error id a user was given. Only names, codes and (redacted, shortened) error messages are kept, never tool
 * input or output, so the log holds nothing a chat did not already show.
 */
import { z } from "zod";
import type { ItemLists, Namespace, Store } from "../infra/store/types.js";

/** How many turns a session keeps; older ones drop off. */
export const TURNS_KEPT = 20;
const ERROR_CHARS = 300;

const toolCallLogSchema = z.object({
  tool: z.string(),
  ok: z.boolean(),
  code: z.string().optional(),
  error: z.string().optional(),
  durationMs: z.number(),
  /** A call that waited for approval: the request, how it was decided and by whom. */
  approval: z.object({ requestId: z.string(), decision: z.string(), by: z.string() }).optional(),
});

const turnLogEntrySchema = z.object({
  traceId: z.string(),
  /** ISO time the turn started. */
  startedAt: z.string(),
  durationMs: z.number(),
  /** Model round trips. */
  steps: z.number(),
  outcome: z.enum(["answered", "step_limit", "budget", "failed"]),
  errorId: z.string().optional(),
  toolCalls: z.array(toolCallLogSchema),
});

export type ToolCallLog = z.infer<typeof toolCallLogSchema>;
export type TurnLogEntry = z.infer<typeof turnLogEntrySchema>;

const storedSchema = z.array(turnLogEntrySchema);

/**
 * A log in the store's lists, appended without reading it (one statement per turn on SQLite). Releases before it
 * kept the whole log as one record under the same key in the namespace, rewritten each turn: still read (behind
 * the newer turns) until the session is reset.
 */
export class TurnLog {
  private readonly lists: ItemLists<unknown>;
  private readonly legacy: Namespace<unknown>;

  constructor(store: Store) {
    this.lists = store.lists<unknown>("sessions");
    this.legacy = store.namespace<unknown>("sessions");
  }

  async append(sessionKey: string, entry: TurnLogEntry): Promise<void> {
    const trimmed = { ...entry, toolCalls: entry.toolCalls.map(shortenError) };
    await this.lists.push(keyOf(sessionKey), trimmed, TURNS_KEPT);
  }

  /** Up to `limit` (at most TURNS_KEPT) turns of the session, oldest first; entries that no longer validate are left out. */
  async recent(sessionKey: string, wanted: number): Promise<TurnLogEntry[]> {
    const limit = Math.min(wanted, TURNS_KEPT);
    if (limit <= 0) return [];
    const turns = validEntries(await this.lists.tail(keyOf(sessionKey), limit));
    if (turns.length >= limit) return turns;
    const parsed = storedSchema.safeParse(await this.legacy.get(keyOf(sessionKey)));
    const older = parsed.success ? parsed.data : [];
    return [...older, ...turns].slice(-limit);
  }

  async reset(sessionKey: string): Promise<void> {
    await this.lists.delete(keyOf(sessionKey));
    await this.legacy.delete(keyOf(sessionKey));
  }
}

function validEntries(items: unknown[]): TurnLogEntry[] {
  return items.flatMap((item) => {
    const parsed = turnLogEntrySchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

// Beside the session's transcript (whose lists end in "#" and a hex generation); no session key contains "#".
function keyOf(sessionKey: string): string {
  return `${sessionKey}#turns`;
}

function shortenError(call: ToolCallLog): ToolCallLog {
  if (call.error === undefined || call.error.length <= ERROR_CHARS) return call;
  return { ...call, error: `${call.error.slice(0, ERROR_CHARS - 1)}…` };
}
