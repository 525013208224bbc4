/**
 * Which time zone a user's times are read and shown in: theirs (/timezone), else their chat's (/timezone chat),
 * else the configured default (agent.timezone). Settings are cached (CachedNamespace: a change made elsewhere is
 * seen within 30 s at most), so creating tasks and turns read none.
 */
import type { ChannelName } from "../core/types.js";
import { CachedNamespace } from "../infra/store/cached-namespace.js";
import type { Namespace, Store } from "../infra/store/types.js";
import { canonicalZone } from "./zones.js";

const CACHE = { topic: "scheduler.zone-changed", ttlMs: 30_000, max: 2_000 };

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
  /** Settings as `ns` holds them, cached (absent ones too); writes go through it. */
  private readonly cached: CachedNamespace<string>;

  constructor(
    store: Store,
    private readonly defaultZone: string,
  ) {
    this.ns = store.namespace<string>("tasks");
    this.cached = new CachedNamespace(this.ns, store.bus, CACHE);
  }

  async resolve(scope: ZoneScope): Promise<ResolvedZone> {
    const user = await this.cached.get(userKey(scope));
    if (user) return { zone: user, source: "user" };
    const chat = await this.cached.get(chatKey(scope));
    if (chat) return { zone: chat, source: "chat" };
    return { zone: this.defaultZone, source: "default" };
  }

  /** `zone` must be canonical (see canonicalZone). */
  async setForUser(scope: Pick<ZoneScope, "channel" | "userId">, zone: string): Promise<void> {
    await this.cached.set(userKey(scope), zone);
  }

  /** The person's own setting only (no chat or default fallback); the profile shows this one. */
  async getForUser(scope: Pick<ZoneScope, "channel" | "userId">): Promise<string | undefined> {
    return this.cached.get(userKey(scope));
  }

  async clearForUser(scope: Pick<ZoneScope, "channel" | "userId">): Promise<void> {
    await this.cached.delete(userKey(scope));
  }

  /**
   * Takes the zone the user's client reported (the browser's) as theirs, unless they chose one with /timezone;
   * false when it is not a zone name this runtime knows, or one was already set.
   */
  async adoptClientZone(scope: ZoneScope, reported: string): Promise<boolean> {
    const zone = canonicalZone(reported);
    if (!zone || (await this.ns.get(userKey(scope)))) return false;
    await this.cached.set(userKey(scope), zone);
    return true;
  }

  async setForChat(scope: ZoneScope, zone: string): Promise<void> {
    await this.cached.set(chatKey(scope), zone);
  }
}

const userKey = (s: Pick<ZoneScope, "channel" | "userId">): string => `zone:user:${s.channel}:${s.userId}`;
const chatKey = (s: ZoneScope): string => `zone:chat:${s.channel}:${s.chatId}`;
