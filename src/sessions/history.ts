/**
 * Per-session transcripts in the store's "sessions" namespace and lists: the messages the model sees, the
 * compaction summary of older turns, and which tools get_tool_info has disclosed. Records are validated when read, because
 * they outlive the code (and the AI SDK version) that wrote them.
 */
import { modelMessageSchema, type ModelMessage } from "ai";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { randomHex } from "../core/ids.js";
import { countTokens } from "../core/tokens.js";
import { HistoryFold } from "./history-fold.js";
import type { Logger } from "../infra/log.js";
import type { Coordinator, ItemLists, Namespace, Store } from "../infra/store/types.js";

export interface SessionRecord {
  messages: ModelMessage[];
  /** Notes on turns that were compacted away; shown in the system prompt's memory section. */
  summary: string | null;
  disclosedTools: string[];
  /** ISO time of the last write. */
  updatedAt: string;
}

/** The record as it was stored before messages had their own list; read once, then rewritten as a header. */
const legacyRecordSchema = z.object({
  messages: z.array(modelMessageSchema),
  summary: z.string().nullable(),
  disclosedTools: z.array(z.string()),
  updatedAt: z.string(),
});

/**
 * What the "sessions" namespace holds per session: everything but the messages, which are items of the list
 * `<key>#<generation>` in the store's lists, of which the first `count` are the session's. Appending writes the new
 * messages and this small header, whatever the session's length; a compaction writes a new generation and then
 * switches the header to it, so a crash between the two leaves the old history whole.
 */
const sessionHeaderSchema = z.object({
  generation: z.string(),
  count: z.number().int().min(0),
  summary: z.string().nullable(),
  disclosedTools: z.array(z.string()),
  updatedAt: z.string(),
});
type SessionHeader = z.infer<typeof sessionHeaderSchema>;

const messagesSchema = z.array(modelMessageSchema);

/** How a loaded record relates to what is stored, so a save can append instead of rewriting. */
interface Persisted {
  generation: string;
  /** How many of the record's messages are stored. */
  count: number;
  /** The record's first message when it was stored: a record whose list was replaced starts differently. */
  first: ModelMessage | undefined;
  /** The generation was made up here and nothing was saved under it yet (a save that failed wrote at most fewer). */
  unsaved?: true;
}

/**
 * Validated messages of recently used sessions, by session key, so that a turn reads and validates only what it
 * has not seen (on Redis, another replica's turns). The header is still read every time and decides whether the
 * copy holds: same generation, no more messages than stored. Bounded by the size of the messages' JSON (about ten
 * sessions at their full history budget), since one message can be a large tool result, and by a number of
 * sessions, since many short ones cost more than their JSON: a session that went quiet is cheap to read again.
 * What is kept per session alongside (the converted messages, and for an OpenAI-compatible model their request form
 * in a buffer grown by doubling, agent/history-forms.ts) lives as long as its messages do here, is not counted in
 * CACHED_BYTES, and can be two or three times their JSON.
 */
const CACHED_BYTES = 1_000_000;
const CACHED_SESSIONS = 2_000;

interface CachedMessages {
  generation: string;
  messages: readonly ModelMessage[];
}

/** How long a record that failed validation is kept aside for inspection. */
const QUARANTINE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export function emptySession(): SessionRecord {
  return { messages: [], summary: null, disclosedTools: [], updatedAt: new Date(0).toISOString() };
}

type HistoryPart = { messages: readonly ModelMessage[]; summary: string | null };

/** Tokens the record adds to a prompt, counting each message as its JSON (an upper bound on its text). */
export function estimateTokens(record: HistoryPart): number {
  return (record.summary === null ? 0 : countTokens(record.summary)) + tokenSums.of(record.messages);
}

/**
 * Whether the record is within `budget` tokens (as estimateTokens counts them). No token is shorter than a byte,
 * so a record whose JSON has no more bytes than the budget is within it without being tokenized: sessions short
 * of their budget never are.
 */
export function withinTokens(record: HistoryPart, budget: number): boolean {
  return historyBytes(record) <= budget || estimateTokens(record) <= budget;
}

function historyBytes(record: HistoryPart): number {
  return (record.summary === null ? 0 : Buffer.byteLength(record.summary)) + byteSums.of(record.messages);
}

/** Per message object: a session's messages stay the same objects from turn to turn (the cache of validated messages keeps them). */
const tokensOfMessage = new WeakMap<ModelMessage, number>();
const bytesOfMessage = new WeakMap<ModelMessage, number>();

const tokenSums = new HistoryFold(() => 0, (sum, message) => sum + messageTokens(message));
const byteSums = new HistoryFold(() => 0, (sum, message) => sum + messageBytes(message));

function messageTokens(message: ModelMessage): number {
  let tokens = tokensOfMessage.get(message);
  if (tokens === undefined) {
    tokens = countTokens(JSON.stringify(message));
    tokensOfMessage.set(message, tokens);
  }
  return tokens;
}

function messageBytes(message: ModelMessage): number {
  let bytes = bytesOfMessage.get(message);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(message));
    bytesOfMessage.set(message, bytes);
  }
  return bytes;
}

/** A turn that lost its session to another replica (its lock lease ran out) tried to save the history. */
export class StaleTurnError extends Error {
  override readonly name = "StaleTurnError";

  constructor(
    readonly sessionKey: string,
    readonly token: number,
  ) {
    super(`session ${sessionKey}: the turn holding token ${token} lost its lock to a newer turn; its history write was refused`);
  }
}

export class SessionHistory {
  private readonly headers: Namespace<unknown>;
  private readonly lists: ItemLists<unknown>;
  private readonly coordinator: Coordinator;
  /** Records this instance loaded or saved; a record it does not know (a compacted copy) is rewritten whole. */
  private readonly persisted = new WeakMap<SessionRecord, Persisted>();
  private readonly cache = new LRUCache<string, CachedMessages>({
    max: CACHED_SESSIONS,
    maxSize: CACHED_BYTES,
    sizeCalculation: (entry) => historyBytes({ messages: entry.messages, summary: null }) + 1,
  });

  constructor(
    store: Store,
    private readonly log: Logger,
  ) {
    this.headers = store.namespace<unknown>("sessions");
    this.lists = store.lists<unknown>("sessions");
    this.coordinator = store.coordinator;
  }

  /**
   * The session's record, or an empty one. A record that no longer validates is moved aside (not deleted) under
   * `<key>#invalid-<time>` and the session starts afresh, so one bad record cannot wedge a chat.
   */
  async load(sessionKey: string): Promise<SessionRecord> {
    const stored = await this.headers.get(sessionKey);
    if (stored === undefined) return this.track(emptySession(), { generation: newGeneration(), count: 0, first: undefined, unsaved: true });
    const header = sessionHeaderSchema.safeParse(stored);
    if (header.success) {
      const { generation, count } = header.data;
      const cached = this.cache.get(sessionKey);
      const known = cached && cached.generation === generation && cached.messages.length <= count ? cached.messages : [];
      const read = known.length === count ? [] : await this.lists.read(listKey(sessionKey, generation), count, known.length);
      const messages = messagesSchema.safeParse(read);
      if (messages.success && known.length + messages.data.length === count) return this.fromHeader(sessionKey, header.data, [...known, ...messages.data]);
      return this.quarantine(sessionKey, stored, messages.success ? [`messages: ${known.length + messages.data.length} of ${count} stored`] : issuesOf(messages.error));
    }
    const legacy = legacyRecordSchema.safeParse(stored);
    // Not tracked: the first save writes it in the new layout.
    if (legacy.success) return legacy.data;
    return this.quarantine(sessionKey, stored, issuesOf(header.error));
  }

  /**
   * Stores the record, stamping its updatedAt: only the new messages when it extends what was loaded or saved.
   * With `fence`, throws a StaleTurnError and writes nothing when a turn with a newer token has saved this session.
   * The check is one atomic step before the write, not with it: a newer holder that saves in between can still be
   * overwritten by this one write, never by the later ones.
   */
  async save(sessionKey: string, record: SessionRecord, fence?: number): Promise<void> {
    if (fence !== undefined && !(await this.coordinator.fence(`session:${sessionKey}`, fence))) {
      throw new StaleTurnError(sessionKey, fence);
    }
    record.updatedAt = new Date().toISOString();
    const known = this.persisted.get(record);
    const extends_ = known !== undefined && record.messages.length >= known.count && (known.count === 0 || record.messages[0] === known.first);
    const generation = extends_ ? known.generation : newGeneration();
    const from = extends_ ? known.count : 0;
    const previous = extends_ ? undefined : sessionHeaderSchema.safeParse(await this.headers.get(sessionKey)).data;
    await this.lists.writeFrom(listKey(sessionKey, generation), from, record.messages.slice(from), { fresh: !extends_ || known.unsaved === true });
    const header: SessionHeader = {
      generation,
      count: record.messages.length,
      summary: record.summary,
      disclosedTools: record.disclosedTools,
      updatedAt: record.updatedAt,
    };
    await this.headers.set(sessionKey, header);
    this.track(record, { generation, count: record.messages.length, first: record.messages[0] });
    this.cache.set(sessionKey, { generation, messages: record.messages.slice() });
    if (previous && previous.generation !== generation) await this.lists.delete(listKey(sessionKey, previous.generation));
  }

  async reset(sessionKey: string): Promise<void> {
    this.cache.delete(sessionKey);
    const header = sessionHeaderSchema.safeParse(await this.headers.get(sessionKey));
    await this.headers.delete(sessionKey);
    if (header.success) await this.lists.delete(listKey(sessionKey, header.data.generation));
  }

  private fromHeader(sessionKey: string, header: SessionHeader, messages: ModelMessage[]): SessionRecord {
    this.cache.set(sessionKey, { generation: header.generation, messages: messages.slice() });
    const record = { messages, summary: header.summary, disclosedTools: header.disclosedTools, updatedAt: header.updatedAt };
    return this.track(record, { generation: header.generation, count: messages.length, first: messages[0] });
  }

  private track(record: SessionRecord, persisted: Persisted): SessionRecord {
    this.persisted.set(record, persisted);
    return record;
  }

  private async quarantine(sessionKey: string, stored: unknown, issues: string[]): Promise<SessionRecord> {
    this.cache.delete(sessionKey);
    const quarantineKey = `${sessionKey}#invalid-${Date.now()}`;
    await this.headers.set(quarantineKey, stored, QUARANTINE_TTL_MS);
    await this.headers.delete(sessionKey);
    this.log.warn({ sessionKey, quarantineKey, issues }, "stored session record is invalid; starting the session afresh");
    return this.track(emptySession(), { generation: newGeneration(), count: 0, first: undefined, unsaved: true });
  }
}

function listKey(sessionKey: string, generation: string): string {
  return `${sessionKey}#${generation}`;
}

function newGeneration(): string {
  return randomHex(12);
}

function issuesOf(error: z.ZodError): string[] {
  return error.issues.slice(0, 5).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}
