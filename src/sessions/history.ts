/**
 * Per-session transcripts in the store's "sessions" namespace: the messages the model sees, the compaction
 * summary of older turns, and which tools get_tool_info has disclosed. Records are validated when read, because
 * they outlive the code (and the AI SDK version) that wrote them.
 */
import { modelMessageSchema, type ModelMessage } from "ai";
import { z } from "zod";
import { countTokens } from "../core/tokens.js";
import type { Logger } from "../infra/log.js";
import type { Namespace, Store } from "../infra/store/types.js";

export interface SessionRecord {
  messages: ModelMessage[];
  /** Notes on turns that were compacted away; shown in the system prompt's memory section. */
  summary: string | null;
  disclosedTools: string[];
  /** ISO time of the last write. */
  updatedAt: string;
}

const sessionRecordSchema = z.object({
  messages: z.array(modelMessageSchema),
  summary: z.string().nullable(),
  disclosedTools: z.array(z.string()),
  updatedAt: z.string(),
});

/** How long a record that failed validation is kept aside for inspection. */
const QUARANTINE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export function emptySession(): SessionRecord {
  return { messages: [], summary: null, disclosedTools: [], updatedAt: new Date(0).toISOString() };
}

/** Tokens the record adds to a prompt, counting each message as its JSON (an upper bound on its text). */
export function estimateTokens(record: { messages: readonly ModelMessage[]; summary: string | null }): number {
  let tokens = record.summary === null ? 0 : countTokens(record.summary);
  for (const message of record.messages) tokens += countTokens(JSON.stringify(message));
  return tokens;
}

export class SessionHistory {
  private readonly records: Namespace<unknown>;

  constructor(
    store: Store,
    private readonly log: Logger,
  ) {
    this.records = store.namespace<unknown>("sessions");
  }

  /**
   * The session's record, or an empty one. A record that no longer validates is moved aside (not deleted) under
   * `<key>#invalid-<time>` and the session starts afresh, so one bad record cannot wedge a chat.
   */
  async load(sessionKey: string): Promise<SessionRecord> {
    const stored = await this.records.get(sessionKey);
    if (stored === undefined) return emptySession();
    const parsed = sessionRecordSchema.safeParse(stored);
    if (parsed.success) return parsed.data;
    const quarantineKey = `${sessionKey}#invalid-${Date.now()}`;
    await this.records.set(quarantineKey, stored, QUARANTINE_TTL_MS);
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    this.log.warn({ sessionKey, quarantineKey, issues }, "stored session record is invalid; starting the session afresh");
    return emptySession();
  }

  /** Stores the record, stamping its updatedAt. */
  async save(sessionKey: string, record: SessionRecord): Promise<void> {
    record.updatedAt = new Date().toISOString();
    await this.records.set(sessionKey, record);
  }

  async reset(sessionKey: string): Promise<void> {
    await this.records.delete(sessionKey);
  }
}
