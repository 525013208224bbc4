/** A person's own time zone setting, shared by /timezone, the profile tools and reminders, so they never disagree. */
export interface PersonRef {
  channel: string;
  userId: string;
}

export interface TimezoneRecord {
  get(user: PersonRef): Promise<string | undefined>;
  /** Stores the zone and returns its canonical name; throws for an unknown zone, saying so. */
  set(user: PersonRef, zone: string): Promise<string>;
  clear(user: PersonRef): Promise<void>;
}
