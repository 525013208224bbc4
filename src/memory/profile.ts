/**
 * A person's profile: a few fields they told the bot (name, preferred language, time zone, location,
 * occupation, notes), and the ones they would rather not answer. The time zone is not stored here: it is the
 * same record /timezone sets, reached through a TimezoneRecord, so the two can never disagree.
 */
import type { ChannelName } from "../core/types.js";
import type { Namespace, Store } from "../infra/store/types.js";
import { MemoryError } from "./types.js";
import type { TimezoneRecord } from "../core/timezones.js";

export const PROFILE_FIELDS = ["name", "language", "timezone", "location", "occupation", "notes"] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

export const PROFILE_LABELS: Record<ProfileField, string> = {
  name: "name",
  language: "preferred language",
  timezone: "time zone",
  location: "location",
  occupation: "occupation",
  notes: "notes",
};

export type { TimezoneRecord };

export interface ProfileUser {
  channel: ChannelName;
  userId: string;
}

export interface Profile {
  fields: Partial<Record<ProfileField, string>>;
  /** Questions the person chose not to answer: not to be asked again. */
  skipped: ProfileField[];
}

interface StoredProfile {
  fields: Partial<Record<Exclude<ProfileField, "timezone">, string>>;
  skipped: ProfileField[];
  updatedAt: string;
}

const MAX_CHARS: Record<ProfileField, number> = { name: 100, language: 50, timezone: 64, location: 100, occupation: 100, notes: 500 };

export class ProfileStore {
  private readonly ns: Namespace<StoredProfile>;

  constructor(
    private readonly store: Store,
    private readonly timezones: TimezoneRecord,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.ns = store.namespace<StoredProfile>("memory");
  }

  async get(user: ProfileUser): Promise<Profile> {
    const [stored, timezone] = await Promise.all([this.ns.get(key(user)), this.timezones.get(user)]);
    return {
      fields: { ...stored?.fields, ...(timezone ? { timezone } : {}) },
      skipped: stored?.skipped ?? [],
    };
  }

  /** Sets one field (an empty value clears it); returns the value as stored. */
  async update(user: ProfileUser, field: ProfileField, value: string): Promise<string> {
    const clean = value.trim().replace(/\s+/g, " ");
    if (clean.length > MAX_CHARS[field]) {
      throw new MemoryError(`The ${PROFILE_LABELS[field]} is at most ${MAX_CHARS[field]} characters.`, "invalid");
    }
    if (field === "timezone") {
      if (clean === "") await this.timezones.clear(user);
      const zone = clean === "" ? "" : await this.timezones.set(user, clean);
      await this.edit(user, (p) => void (p.skipped = p.skipped.filter((f) => f !== field)));
      return zone;
    }
    await this.edit(user, (p) => {
      if (clean === "") delete p.fields[field];
      else p.fields[field] = clean;
      p.skipped = p.skipped.filter((f) => f !== field);
    });
    return clean;
  }

  /** Records that the person would rather not say; the prompt then tells the model not to ask again. */
  async skip(user: ProfileUser, field: ProfileField): Promise<void> {
    await this.edit(user, (p) => {
      if (!p.skipped.includes(field)) p.skipped.push(field);
    });
  }

  /** Deletes the profile, time zone included. Returns whether there was anything. */
  async forget(user: ProfileUser): Promise<boolean> {
    const hadZone = (await this.timezones.get(user)) !== undefined;
    await this.timezones.clear(user);
    return (await this.ns.delete(key(user))) || hadZone;
  }

  /** Read, change, write under the person's lock, so two updates at once both land. */
  private async edit(user: ProfileUser, change: (profile: StoredProfile) => void): Promise<void> {
    await this.store.coordinator.withLock(`memory:${key(user)}`, async () => {
      const current = await this.ns.get(key(user));
      const profile: StoredProfile = { fields: { ...current?.fields }, skipped: [...(current?.skipped ?? [])], updatedAt: "" };
      change(profile);
      profile.updatedAt = this.now().toISOString();
      if (Object.keys(profile.fields).length === 0 && profile.skipped.length === 0) await this.ns.delete(key(user));
      else await this.ns.set(key(user), profile);
    });
  }
}

const key = (user: ProfileUser): string => `profile:${user.channel}:${user.userId}`;
