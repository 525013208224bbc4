/**
 * Which time zone a user's times are read and shown in: theirs (/timezone), else their chat's (/timezone chat),
 * else the configured default (agent.timezone). Settings are cached (absent ones too), so creating tasks reads
 * none: a change here drops the entry and tells the other instances and replicas on the store's bus; a writer
 * the bus does not reach (the CLI on SQLite) is seen when the entry expires.
 */
import type { ChannelName } from "../core/types.js";
import type { MessageBus, Namespace, Store } from "../infra/store/types.js";
import { canonicalZone } from "./zones.js";

const CHANGED_TOPIC = "scheduler.zone-changed";
const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;

export type ZoneSource = "user" | "chat" | "default";

export interface ResolvedZone {
  zone: string;
  source: ZoneSource;
}

export interface ZoneScope {
  channel: ChannelName;
  chatId: string;
  userId: string;
}

export class ZonePreferences {
  private readonly ns: Namespace<string>;
  private readonly bus: MessageBus;
  /** Stored setting by key, or null for none, with when the entry expires. */
  private readonly cache = new Map<string, { zone: string | null; until: number }>();
  private subscribed: Promise<boolean> | null = null;
  /** Counts changes seen, so a read that raced one does not cache what it read before it. */
  private changes = 0;

  constructor(
    store: Store,
    private readonly defaultZone: string,
  ) {
    this.ns = store.namespace<string>("tasks");
    this.bus = store.bus;
  }

  async resolve(scope: ZoneScope): Promise<ResolvedZone> {
    const user = await this.cached(userKey(scope));
    if (user) return { zone: user, source: "user" };
    const chat = await this.cached(chatKey(scope));
    if (chat) return { zone: chat, source: "chat" };
    return { zone: this.defaultZone, source: "default" };
  }

  /** `zone` must be canonical (see canonicalZone). */
  async setForUser(scope: Pick<ZoneScope, "channel" | "userId">, zone: string): Promise<void> {
    await this.write(userKey(scope), zone);
  }

  /** The person's own setting only (no chat or default fallback); the profile shows this one. */
  async getForUser(scope: Pick<ZoneScope, "channel" | "userId">): Promise<string | undefined> {
    return this.ns.get(userKey(scope));
  }

  async clearForUser(scope: Pick<ZoneScope, "channel" | "userId">): Promise<void> {
    await this.write(userKey(scope), null);
  }

  /**
   * Takes the zone the user's client reported (the browser's) as theirs, unless they chose one with /timezone;
   * false when it is not a zone name this runtime knows, or one was already set.
   */
  async adoptClientZone(scope: ZoneScope, reported: string): Promise<boolean> {
    const zone = canonicalZone(reported);
    if (!zone || (await this.ns.get(userKey(scope)))) return false;
    await this.write(userKey(scope), zone);
    return true;
  }

  async setForChat(scope: ZoneScope, zone: string): Promise<void> {
    await this.write(chatKey(scope), zone);
  }

  private async cached(key: string): Promise<string | null> {
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit.zone;
    // Cache only while changes elsewhere can reach this instance; a bus that failed leaves every read to the store.
    const listening = await this.listen();
    const changesBefore = this.changes;
    const zone = (await this.ns.get(key)) ?? null;
    if (listening && changesBefore === this.changes) {
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, { zone, until: Date.now() + CACHE_TTL_MS });
    }
    return zone;
  }

  private async write(key: string, zone: string | null): Promise<void> {
    this.forget(key);
    if (zone === null) await this.ns.delete(key);
    else await this.ns.set(key, zone);
    this.forget(key);
    await this.bus.publish(CHANGED_TOPIC, key);
  }

  private forget(key: string): void {
    this.changes += 1;
    this.cache.delete(key);
  }

  private listen(): Promise<boolean> {
    this.subscribed ??= this.bus.subscribe(CHANGED_TOPIC, (key) => this.forget(key)).then(
      () => true,
      () => false,
    );
    return this.subscribed;
  }
}

const userKey = (s: Pick<ZoneScope, "channel" | "userId">): string => `zone:user:${s.channel}:${s.userId}`;
const chatKey = (s: ZoneScope): string => `zone:chat:${s.channel}:${s.chatId}`;
