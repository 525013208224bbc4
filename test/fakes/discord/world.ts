/**
 * What the fake Discord knows: the bot, its application, its guilds with their channels, threads and roles, and
 * builders for the MESSAGE_CREATE payloads tests dispatch. Ids are numeric snowflakes, as discord.js requires.
 */

export const FAKE_TOKEN = "fake-discord-bot-token.abc123";

/** Application flag GATEWAY_MESSAGE_CONTENT: the privileged intent is on. */
export const MESSAGE_CONTENT_FLAG = 1 << 18;

/** Message flags: IS_VOICE_MESSAGE. */
export const VOICE_MESSAGE_FLAG = 1 << 13;

export const ChannelTypes = { GuildText: 0, DM: 1, PublicThread: 11, GuildForum: 15 } as const;

export interface FakeUser {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
  discriminator: string;
  avatar: null;
}

export interface FakeChannel {
  id: string;
  type: number;
  name: string;
  guild_id: string;
  parent_id?: string;
  position: number;
  permission_overwrites: [];
  thread_metadata?: { archived: boolean; auto_archive_duration: number; archive_timestamp: string; locked: boolean };
}

export interface FakeRole {
  id: string;
  name: string;
  permissions: string;
  position: number;
  color: number;
  hoist: boolean;
  managed: boolean;
  mentionable: boolean;
  tags?: { bot_id?: string };
}

export interface FakeGuild {
  id: string;
  name: string;
  channels: FakeChannel[];
  threads: FakeChannel[];
  roles: FakeRole[];
}

let nextId = 1_000n;
/** A fresh snowflake (18 digits), unique within the test process. */
export function snowflake(): string {
  nextId += 1n;
  return (100_000_000_000_000_000n + nextId).toString();
}

export function user(username: string, extra: Partial<FakeUser> = {}): FakeUser {
  return { id: snowflake(), username, global_name: null, discriminator: "0", avatar: null, ...extra };
}

export function role(name: string, extra: Partial<FakeRole> = {}): FakeRole {
  return { id: snowflake(), name, permissions: "0", position: 1, color: 0, hoist: false, managed: false, mentionable: true, ...extra };
}

function channel(guildId: string, type: number, name: string, parentId?: string): FakeChannel {
  return {
    id: snowflake(),
    type,
    name,
    guild_id: guildId,
    position: 0,
    permission_overwrites: [],
    ...(parentId !== undefined ? { parent_id: parentId } : {}),
  };
}

function thread(guildId: string, name: string, parentId: string): FakeChannel {
  const archive_timestamp = new Date().toISOString();
  return {
    ...channel(guildId, ChannelTypes.PublicThread, name, parentId),
    thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp, locked: false },
  };
}

/** The standard test world: one guild with #general, a thread in it, a forum with one post, and roles. */
export function standardWorld(bot: FakeUser) {
  const guildId = snowflake();
  const general = channel(guildId, ChannelTypes.GuildText, "general");
  const forum = channel(guildId, ChannelTypes.GuildForum, "questions");
  const helpThread = thread(guildId, "login trouble", general.id);
  const forumPost = thread(guildId, "How do I reset?", forum.id);
  const everyone: FakeRole = role("@everyone", { id: guildId, position: 0 });
  const admins = role("admins");
  const botRole = role(bot.username, { managed: true, tags: { bot_id: bot.id } });
  const guild: FakeGuild = {
    id: guildId,
    name: "Test Server",
    channels: [general, forum],
    threads: [helpThread, forumPost],
    roles: [everyone, admins, botRole],
  };
  return { guild, general, forum, helpThread, forumPost, admins, botRole };
}

export type StandardWorld = ReturnType<typeof standardWorld>;

/** The GUILD_CREATE payload discord.js needs to cache the guild, its channels, threads and roles. */
export function guildCreatePayload(guild: FakeGuild): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    unavailable: false,
    owner_id: guild.roles[0]!.id,
    joined_at: new Date().toISOString(),
    member_count: 2,
    large: false,
    features: [],
    emojis: [],
    stickers: [],
    members: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    channels: guild.channels,
    threads: guild.threads,
    roles: guild.roles,
  };
}

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  duration_secs?: number;
  waveform?: string;
}

export interface MessageOptions {
  channelId: string;
  guildId?: string;
  author: FakeUser;
  content?: string;
  mentions?: FakeUser[];
  mentionRoles?: string[];
  attachments?: FakeAttachment[];
  flags?: number;
  /** The message this one replies to (type 19 REPLY). */
  replyTo?: Record<string, unknown>;
  memberRoles?: string[];
  nick?: string;
  id?: string;
}

/** A MESSAGE_CREATE payload as Discord sends it (the fields discord.js and Switchboard read). */
export function messagePayload(opts: MessageOptions): Record<string, unknown> {
  const inGuild = opts.guildId !== undefined;
  return {
    id: opts.id ?? snowflake(),
    channel_id: opts.channelId,
    ...(inGuild ? { guild_id: opts.guildId, member: { roles: opts.memberRoles ?? [], nick: opts.nick ?? null, joined_at: new Date().toISOString() } } : {}),
    type: opts.replyTo ? 19 : 0,
    author: opts.author,
    content: opts.content ?? "",
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: (opts.mentions ?? []).map((u) => (inGuild ? { ...u, member: { roles: [], nick: null } } : u)),
    mention_roles: opts.mentionRoles ?? [],
    attachments: opts.attachments ?? [],
    embeds: [],
    pinned: false,
    flags: opts.flags ?? 0,
    ...(opts.replyTo
      ? { message_reference: { type: 0, message_id: opts.replyTo.id, channel_id: opts.channelId }, referenced_message: opts.replyTo }
      : {}),
  };
}
