/**
 * Catching up after a new gateway session. A resumed session replays what was missed, but a new one (the first
 * connect after a restart or a takeover by another replica, or the watchdog replacing a zombie connection) starts
 * from now: what was posted while no session was live would be lost. So the newest message handed over in each
 * recently active channel is remembered in the store, and after every new session the channel fetches what came
 * after it (`GET /channels/{id}/messages?after=`) and hands it over like a gateway event; the router's dedup drops
 * what was handled already. REST messages carry no guild_id (added from the cursor) and no member, so a chat
 * gated on the sender's roles sees no roles for caught-up messages.
 */
import { Routes, type REST } from "discord.js";
import type { InboundMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Namespace, Store } from "../../infra/store/types.js";

interface Cursor {
  lastId: string;
  guildId?: string;
  at: number;
}

type Cursors = Record<string, Cursor>;

/** A channel is caught up if a message was handed over there within this time. */
const RECENT_MS = 24 * 3_600_000;
const MAX_CHANNELS = 50;
/** Messages fetched per channel after a new session; more than that in one outage is not caught up. */
const PAGE = 100;
/** Cursors are written behind, at most this often: a crash loses at most this much (and fetches a little more). */
const FLUSH_MS = 1_000;

export class DiscordCatchUp {
  private readonly cursors = new Map<string, Cursor>();
  private readonly records: Namespace<Cursors>;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: {
      store: Store;
      /** Names the bot, so two bots on one store keep their cursors apart. */
      key: string;
      rest: REST;
      log: Logger;
    },
  ) {
    this.records = opts.store.namespace<Cursors>("meta");
  }

  /** Remembers the message as the newest seen in its channel. */
  note(message: InboundMessage): void {
    const channelId = message.chat.threadId ?? message.chat.id;
    const current = this.cursors.get(channelId);
    if (current && BigInt(current.lastId) >= BigInt(message.platformMessageId)) return;
    this.cursors.set(channelId, { lastId: message.platformMessageId, ...(message.chat.space ? { guildId: message.chat.space } : {}), at: Date.now() });
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      this.flushing = this.flush();
    }, FLUSH_MS);
  }

  /**
   * Fetches, for each recently active channel, what was posted after the newest message seen there, and hands
   * each message (oldest first) to `feed` as a gateway payload. A channel that cannot be read is logged and skipped.
   */
  async run(feed: (raw: Record<string, unknown>) => void): Promise<void> {
    await this.load();
    const since = Date.now() - RECENT_MS;
    const recent = [...this.cursors].filter(([, cursor]) => cursor.at >= since);
    let fetched = 0;
    for (const [channelId, cursor] of recent) {
      try {
        const page = (await this.opts.rest.get(Routes.channelMessages(channelId), {
          query: new URLSearchParams({ after: cursor.lastId, limit: String(PAGE) }),
        })) as Array<Record<string, unknown> & { id: string }>;
        const oldestFirst = [...page].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        for (const raw of oldestFirst) feed(cursor.guildId ? { ...raw, guild_id: cursor.guildId } : raw);
        fetched += page.length;
      } catch (err) {
        this.opts.log.warn({ err, channelId }, "could not fetch the Discord messages missed in a channel; skipped");
      }
    }
    if (fetched > 0) this.opts.log.info({ channels: recent.length, messages: fetched }, "caught up on Discord messages posted while disconnected");
  }

  /** Writes what is pending; called on stop. */
  async close(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushing;
    await this.flush();
  }

  /** Merges the stored cursors (another replica's, or a previous run's) into the ones held here. */
  private async load(): Promise<void> {
    const stored = (await this.records.get(this.storeKey()).catch(() => undefined)) ?? {};
    for (const [channelId, cursor] of Object.entries(stored)) {
      const current = this.cursors.get(channelId);
      if (!current || BigInt(current.lastId) < BigInt(cursor.lastId)) this.cursors.set(channelId, cursor);
    }
  }

  private async flush(): Promise<void> {
    const newest = [...this.cursors].sort(([, a], [, b]) => b.at - a.at).slice(0, MAX_CHANNELS);
    try {
      await this.records.set(this.storeKey(), Object.fromEntries(newest), RECENT_MS);
    } catch (err) {
      this.opts.log.warn({ err }, "could not store where each Discord channel was read up to; retrying with the next message");
    }
  }

  private storeKey(): string {
    return `discord-cursors:${this.opts.key}`;
  }
}
