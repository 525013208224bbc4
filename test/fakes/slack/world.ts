/** The fake Slack's workspace: one team, the bot, two people, a channel, a private channel and DMs. */
export const TEAM_ID = "T0FAKE0001";
export const BOT_TOKEN = "xoxb-fake-bot-token-0001";
export const APP_TOKEN = "xapp-1-fake-app-token-0001";
export const SIGNING_SECRET = "fake-signing-secret-0001";

export interface FakeUser {
  id: string;
  name: string;
  /** The language of the person's Slack client, as users.info answers it with include_locale. */
  locale?: string;
}

export const bot = { userId: "U0BOT00001", botId: "B0BOT00001", name: "switchboard" };
export const alice: FakeUser = { id: "U0ALICE001", name: "alice", locale: "en-US" };
export const bob: FakeUser = { id: "U0BOB00001", name: "bob" };
/** A person whose Slack speaks Chinese. */
export const li: FakeUser = { id: "U0LI000001", name: "li", locale: "zh-CN" };
export const people: readonly FakeUser[] = [alice, bob, li];

export const general = "C0GENERAL1";
export const privateChannel = "G0PRIVATE1";
/** The DM channel of a person with the bot. */
export function dmOf(user: FakeUser): string {
  return `D0${user.id.slice(2)}`;
}

/** A user group (S...) and its members: the `roles` of access rules. */
export const admins = { id: "S0ADMINS01", handle: "admins", users: [alice.id] };

/** The scopes the fake grants the bot token by default (sent in X-OAuth-Scopes). */
export const DEFAULT_SCOPES = [
  "app_mentions:read",
  "channels:history",
  "groups:history",
  "im:history",
  "im:write",
  "mpim:history",
  "chat:write",
  "reactions:write",
  "files:read",
  "files:write",
  "usergroups:read",
  "users:read",
  "commands",
];

export function knownChannels(): Set<string> {
  return new Set([general, privateChannel, ...people.map(dmOf)]);
}
