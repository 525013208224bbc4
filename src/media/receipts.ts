/**
 * Delivery receipts: one per artifact deliver_artifacts was asked to send, the only proof that a file reached a
 * chat. Each is written to a ledger in the store ("receipts" namespace), per chat and newest last, so the CLI
 * and the HTTP API can show what was sent, skipped or lost, across restarts and replicas.
 */
import type { ChannelName } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";

export const ARTIFACT_TYPES = ["file", "image", "voice", "video"] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export type ReceiptStatus = "delivered" | "skipped" | "failed";

export type ReceiptErrorCode =
  | "not_found"
  | "outside_workspace"
  | "too_large"
  | "unsupported_type"
  | "deduped"
  | "send_failed"
  | "timeout"
  | "cancelled";

/** What the model gets back for one artifact; snake_case like the tool's input. */
export interface Receipt {
  index: number;
  type: ArtifactType;
  path: string;
  name: string;
  size: number | null;
  sha256: string | null;
  mime: string | null;
  status: ReceiptStatus;
  error_code: ReceiptErrorCode | null;
  error: string | null;
  channel: ChannelName;
  chat_id: string;
  /** The platform's id of the message that carries the file (of the earlier delivery, when deduped). */
  message_id: string | null;
  delivered_at: string | null;
  dedupe_key: string | null;
  /** How it was sent when that differs from `type`: a refused photo goes as a file, a voice without ffmpeg as audio. */
  sent_as?: string;
  warnings?: string[];
}

/** A receipt as the ledger keeps it: who asked, and when it was recorded. */
export interface LedgerEntry extends Receipt {
  session_key: string;
  trace_id: string;
  recorded_at: string;
}

/** Newest receipts kept per chat; older ones fall off. */
const PER_CHAT_LIMIT = 1_000;
/** Chats remembered in the ledger's index. */
const CHAT_LIMIT = 10_000;
const INDEX_KEY = "ledger:chats";
const LOCK_KEY = "receipts:ledger";

const chatKeyOf = (channel: ChannelName, chatId: string): string => `${channel}:${chatId}`;

export class ReceiptLedger {
  private readonly entries: Namespace<LedgerEntry[]>;
  private readonly index: Namespace<string[]>;

  constructor(private readonly store: Store) {
    // Two typed views of one namespace; their keys never meet ("ledger:chat:..." and "ledger:chats").
    this.entries = store.namespace<LedgerEntry[]>("receipts");
    this.index = store.namespace<string[]>("receipts");
  }

  async record(receipts: readonly LedgerEntry[]): Promise<void> {
    if (receipts.length === 0) return;
    // One lock for the whole ledger: writes are rare (one per delivery) and must not lose each other on Redis.
    await this.store.coordinator.withLock(LOCK_KEY, async () => {
      const byChat = new Map<string, LedgerEntry[]>();
      for (const r of receipts) {
        const chat = chatKeyOf(r.channel, r.chat_id);
        byChat.set(chat, [...(byChat.get(chat) ?? []), r]);
      }
      for (const [chat, added] of byChat) {
        const kept = [...((await this.entries.get(entriesKey(chat))) ?? []), ...added].slice(-PER_CHAT_LIMIT);
        await this.entries.set(entriesKey(chat), kept);
      }
      const chats = (await this.index.get(INDEX_KEY)) ?? [];
      const known = new Set(chats);
      const fresh = [...byChat.keys()].filter((chat) => !known.has(chat));
      if (fresh.length > 0) await this.index.set(INDEX_KEY, [...chats, ...fresh].slice(-CHAT_LIMIT));
    });
  }

  /**
   * The newest `limit` receipts, newest first. `chat` is "channel:chatId" for one chat, or a bare chat id that
   * matches it on every channel.
   */
  async list(opts: { chat?: string; limit?: number } = {}): Promise<LedgerEntry[]> {
    const chats = (await this.index.get(INDEX_KEY)) ?? [];
    const { chat } = opts;
    const wanted = chat === undefined ? chats : chats.filter((key) => key === chat || key.slice(key.indexOf(":") + 1) === chat);
    const lists = await Promise.all(wanted.map(async (key) => (await this.entries.get(entriesKey(key))) ?? []));
    const all = lists.flat().sort((a, b) => b.recorded_at.localeCompare(a.recorded_at) || b.index - a.index);
    return all.slice(0, opts.limit ?? 100);
  }
}

const entriesKey = (chat: string): string => `ledger:chat:${chat}`;
