/**
 * The list of sessions the console shows: the store keeps transcripts by key and cannot enumerate them, so each
 * turn notes its session here (one record, newest first, capped). What a session says stays in its transcript;
 * the directory keeps only where it lives and a short preview.
 */
import { z } from "zod";
import type { Namespace, Store } from "../infra/store/types.js";

export interface SessionEntry {
  key: string;
  channel: string;
  chatId: string;
  chatTitle?: string;
  userId: string;
  userName?: string;
  /** The start of the latest message, for the list. */
  preview: string;
  updatedAt: number;
}

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

export class SessionDirectory {
  private readonly records: Namespace<unknown>;
  /** Touches not written yet, by session key: they go into the next write together. */
  private readonly pending = new Map<string, SessionEntry>();
  /** The write in progress; the next one starts after it. */
  private writing: Promise<void> = Promise.resolve();
  /** The write that takes the pending touches, once scheduled. */
  private next: Promise<void> | undefined;

  constructor(private readonly store: Store) {
    this.records = store.namespace<unknown>("sessions");
  }

  /**
   * Moves the session to the top of the list with its latest message. Touches that arrive while a write is under
   * way are written together after it (one read and one write of the list for all of them), since every turn
   * touches the directory; resolves once the touch is stored.
   */
  touch(entry: Omit<SessionEntry, "updatedAt" | "preview"> & { text: string }, now = Date.now()): Promise<void> {
    const { text, ...where } = entry;
    const fresh: SessionEntry = { ...where, preview: text.slice(0, PREVIEW_CHARS), updatedAt: now };
    this.pending.delete(entry.key);
    this.pending.set(entry.key, fresh);
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
    await this.update((entries) => [...touched, ...entries.filter((e) => !keys.has(e.key))].slice(0, MAX_ENTRIES));
  }

  async forget(key: string): Promise<void> {
    await this.update((entries) => entries.filter((e) => e.key !== key));
  }

  /** Newest first; `query` matches the key, chat, user or preview, ignoring case. */
  async list(query = ""): Promise<SessionEntry[]> {
    const entries = await this.read();
    const wanted = query.trim().toLowerCase();
    if (!wanted) return entries;
    return entries.filter((e) =>
      [e.key, e.chatId, e.chatTitle, e.userId, e.userName, e.preview].some((field) => field?.toLowerCase().includes(wanted)),
    );
  }

  async has(key: string): Promise<boolean> {
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
