/**
 * The list of sessions the console shows: the store keeps transcripts by key and cannot enumerate them, so each
 * turn notes its session here (one record, newest first, capped). What a session says stays in its transcript;
 * the directory keeps only where it lives and a short preview.
 */
import { z } from "zod";
import type { Logger } from "../infra/log.js";
import type { Namespace, Store } from "../infra/store/types.js";
import type { ChannelName, ChatType } from "../core/types.js";
import type { SessionEntry } from "../core/session-entry.js";
import { KnownChats } from "./known-chats.js";

const entrySchema = z.object({
  key: z.string(),
  channel: z.string(),
  chatId: z.string(),
  chatTitle: z.string().optional(),
  userId: z.string(),
  userName: z.string().optional(),
  preview: z.string(),
  updatedAt: z.number(),
});

/** A key no session key can take: session keys start with a channel name. */
const DIRECTORY_KEY = "#directory";
const MAX_ENTRIES = 1_000;
const PREVIEW_CHARS = 120;

/** Touches are written together at most this often: every turn touches the directory, and it is one record. */
const WRITE_EVERY_MS = 2_000;

export class SessionDirectory {
  private readonly records: Namespace<unknown>;
  /** Every chat that wrote to the gateway, kept longer than the list: files go only to chats it knows. */
  private readonly chats: KnownChats;
  /** Touches not written yet, by session key, oldest first: they go into the next write together. */
  private readonly pending = new Map<string, SessionEntry>();
  private timer: NodeJS.Timeout | undefined;
  /** The write in progress; the next one starts after it. */
  private writing: Promise<void> = Promise.resolve();
  /** The write that takes the pending touches, once scheduled. */
  private next: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly log?: Logger,
  ) {
    this.records = store.namespace<unknown>("sessions");
    this.chats = new KnownChats(store);
  }

  /** Whether a message ever came from this chat (within the last half year). */
  isKnownChat(channel: ChannelName, chatId: string): Promise<boolean> {
    return this.chats.has(channel, chatId);
  }

  /**
   * Moves the session to the top of the list with its latest message, in memory at once (this process's list and
   * lookups see it) and in the store within WRITE_EVERY_MS, with the other touches of that time: one read and one
   * write of the list instead of one per turn. A crash loses those seconds of the index, not of any transcript.
   * Resolves when the chat itself is on record (written at most once a day per chat).
   */
  touch(entry: Omit<SessionEntry, "updatedAt" | "preview"> & { text: string; chatType: ChatType }, now = Date.now()): Promise<void> {
    const { text, chatType, ...where } = entry;
    const fresh: SessionEntry = { ...where, preview: text.slice(0, PREVIEW_CHARS), updatedAt: now };
    this.pending.delete(entry.key);
    this.pending.set(entry.key, fresh);
    // While the store refuses writes, only the newest touches wait: the list keeps no more anyway.
    if (this.pending.size > MAX_ENTRIES) this.pending.delete(this.pending.keys().next().value!);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((err: unknown) => this.log?.warn({ err }, "could not write the session directory; retrying with the next touch"));
    }, WRITE_EVERY_MS).unref();
    const chat = { type: chatType, ...(where.chatTitle !== undefined ? { title: where.chatTitle } : {}), lastSeen: new Date(now).toISOString() };
    return this.chats.remember(where.channel, where.chatId, chat);
  }

  /** Writes the pending touches now (before reading the list, and at shutdown). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0 && !this.next) return this.writing;
    if (!this.next) {
      const next = this.writing.then(() => this.writePending());
      this.next = next;
      this.writing = next.catch(() => undefined);
    }
    return this.next;
  }

  private async writePending(): Promise<void> {
    this.next = undefined;
    // Newest last in the map: the newest goes on top.
    const touched = [...this.pending.values()].reverse();
    this.pending.clear();
    const keys = new Set(touched.map((e) => e.key));
    try {
      await this.update((entries) => [...touched, ...entries.filter((e) => !keys.has(e.key))].slice(0, MAX_ENTRIES));
    } catch (err) {
      // Kept for the next write, before the touches that came meanwhile (which win for their session).
      const newer = [...this.pending];
      const newerKeys = new Set(this.pending.keys());
      this.pending.clear();
      for (const entry of touched.reverse()) if (!newerKeys.has(entry.key)) this.pending.set(entry.key, entry);
      for (const [key, entry] of newer) this.pending.set(key, entry);
      throw err;
    }
  }

  async forget(key: string): Promise<void> {
    await this.flush();
    await this.update((entries) => entries.filter((e) => e.key !== key));
  }

  /** Newest first; `query` matches the key, chat, user or preview, ignoring case. */
  async list(query = ""): Promise<SessionEntry[]> {
    await this.flush();
    const entries = await this.read();
    const wanted = query.trim().toLowerCase();
    if (!wanted) return entries;
    return entries.filter((e) =>
      [e.key, e.chatId, e.chatTitle, e.userId, e.userName, e.preview].some((field) => field?.toLowerCase().includes(wanted)),
    );
  }

  async has(key: string): Promise<boolean> {
    if (this.pending.has(key)) return true;
    await this.flush();
    return (await this.read()).some((e) => e.key === key);
  }

  private async read(): Promise<SessionEntry[]> {
    const parsed = z.array(entrySchema).safeParse((await this.records.get(DIRECTORY_KEY)) ?? []);
    // Only an index: when unreadable it starts again from the next turn; the transcripts are untouched.
    return parsed.success ? parsed.data : [];
  }

  private update(change: (entries: SessionEntry[]) => SessionEntry[]): Promise<void> {
    return this.store.coordinator.withLock(`sessions:${DIRECTORY_KEY}`, async () => {
      await this.records.set(DIRECTORY_KEY, change(await this.read()));
    });
  }
}
