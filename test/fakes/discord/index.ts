/**
 * A fake Discord for tests: one real HTTP server on 127.0.0.1 (port 0) serving the REST API under /api, the
 * WebSocket gateway at /gateway (its URL comes from GET /gateway/bot, as with Discord) and attachment downloads.
 * discord.js talks to it unmodified: `rest.api = fake.apiUrl`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeGateway, type GatewayStats } from "./gateway.js";
import { FakeRest, type DmChannel, type FakeInteraction, type MessageEdit, type Ping, type PostedMessage, type RegisteredCommand, type RestFault, type RestLogEntry } from "./rest.js";
import { FAKE_TOKEN, MESSAGE_CONTENT_FLAG, snowflake, standardWorld, user, type FakeGuild, type FakeUser, type StandardWorld } from "./world.js";
import { eventually } from "../../helpers/wait.js";

export * from "./world.js";
export type { PostedMessage, RestFault, DmChannel, MessageEdit, Ping, FakeInteraction, RegisteredCommand } from "./rest.js";

/** Where an interaction happens: a DM (no guild) or a server channel, with the member's roles. */
export interface InteractionPlace {
  channelId: string;
  guildId?: string;
  memberRoles?: string[];
  /** The invoking user's client language; "en-US" when not given. */
  locale?: string;
}

export interface FakeDiscordOptions {
  /** Default 41250 ms, as Discord; the watchdog tests use a short one. */
  heartbeatIntervalMs?: number;
  applicationFlags?: number;
  /** The clock that stamps edits with the time they arrived (`at`); Date.now when absent. */
  now?: () => number;
}

export interface FakeDiscord {
  /** http://127.0.0.1:port */
  url: string;
  /** What `channels.discord.apiUrl` is set to. */
  apiUrl: string;
  token: string;
  bot: FakeUser;
  world: StandardWorld;
  guilds: FakeGuild[];
  /** Messages the bot created, oldest first. */
  messages: PostedMessage[];
  /** Edits of the bot's messages, with the time each arrived. */
  edits: MessageEdit[];
  /** Mentions in the bot's messages and edits that Discord would have notified. */
  pings: Ping[];
  /** The bot's own reactions now: "channelId/messageId" -> emoji. */
  reactions: Map<string, string[]>;
  /** Channel ids of typing requests. */
  typing: string[];
  /** Every REST request with its answer's status. */
  requests: RestLogEntry[];
  gateway: GatewayStats;
  /** Interactions dispatched, with the bot's answers. */
  interactions: FakeInteraction[];
  /** Application commands by scope: "global" or a guild id. */
  commands: Map<string, RegisteredCommand[]>;
  /** `by` presses the button labelled `label` under the bot's message (also one already taken off): INTERACTION_CREATE. */
  pressButton(message: PostedMessage, label: string, by: FakeUser, place?: Omit<InteractionPlace, "channelId">): FakeInteraction;
  /** `by` runs the slash command `/name` (with its text option) in `place`: INTERACTION_CREATE. */
  slashCommand(name: string, text: string | undefined, by: FakeUser, place: InteractionPlace): FakeInteraction;
  dispatch(event: string, data: unknown): number;
  /** A user posts `message` (a messagePayload): it joins the channel's history and is dispatched as MESSAGE_CREATE. */
  post(message: Record<string, unknown>): void;
  failNext(fault: RestFault): void;
  closeNextIdentify(code: number): void;
  closeConnection(code: number): void;
  replayOnResume(count: number): void;
  zombie(): void;
  serveFile(name: string, bytes: Buffer, contentType: string): string;
  dmChannelWith(recipient: FakeUser): DmChannel;
  close(): Promise<void>;
}

export async function startFakeDiscord(opts: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const bot = user("switchboard-bot", { bot: true });
  const world = standardWorld(bot);
  const guilds = [world.guild];
  let base = "";
  const shared = { token: FAKE_TOKEN, bot, guilds, applicationFlags: opts.applicationFlags ?? MESSAGE_CONTENT_FLAG };
  const gatewayUrl = () => `${base.replace(/^http/, "ws")}/gateway`;
  const rest = new FakeRest({ ...shared, gatewayUrl, baseUrl: () => base, now: opts.now ?? Date.now });
  const gateway = new FakeGateway({ ...shared, heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 41_250, url: gatewayUrl });

  const server = createServer((req, res) => {
    rest.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: `fake-discord: ${String(err)}`, code: 0 }));
    });
  });
  server.on("upgrade", (req, socket, head) => {
    if (req.url?.startsWith("/gateway")) gateway.upgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    apiUrl: `${base}/api`,
    token: FAKE_TOKEN,
    bot,
    world,
    guilds,
    messages: rest.messages,
    edits: rest.edits,
    pings: rest.pings,
    reactions: rest.reactions,
    typing: rest.typing,
    requests: rest.log,
    gateway: gateway.stats,
    interactions: rest.interactions,
    commands: rest.commands,
    pressButton(message, label, by, place = {}) {
      const button = rest.shownButtons.get(message.id)?.find((b) => b.label === label);
      if (!button) throw new Error(`fake-discord: no button "${label}" under message ${message.id}`);
      const interaction = rest.openInteraction("component", message.channelId, message.id);
      const data = { custom_id: button.custom_id, component_type: 2 };
      const shown = { id: message.id, channel_id: message.channelId, author: bot, content: message.payload.content ?? "", timestamp: new Date().toISOString(), edited_timestamp: null, tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: [], pinned: false, type: 0, flags: 0, components: message.payload.components ?? [] };
      gateway.dispatch("INTERACTION_CREATE", interactionPayload(interaction, 3, { channelId: message.channelId, ...place }, by, bot, data, shown));
      return interaction;
    },
    slashCommand(name, text, by, place) {
      const interaction = rest.openInteraction("command", place.channelId);
      const data = { id: snowflake(), name, type: 1, ...(text !== undefined ? { options: [{ name: "text", type: 3, value: text }] } : {}) };
      gateway.dispatch("INTERACTION_CREATE", interactionPayload(interaction, 2, place, by, bot, data));
      return interaction;
    },
    dispatch: (event, data) => gateway.dispatch(event, data),
    post: (message) => {
      rest.history.push(message as Record<string, unknown> & { id: string; channel_id: string });
      gateway.dispatch("MESSAGE_CREATE", message);
    },
    failNext: (fault) => rest.failNext(fault),
    closeNextIdentify: (code) => gateway.closeNextIdentify(code),
    closeConnection: (code) => gateway.closeConnection(code),
    replayOnResume: (count) => gateway.replayOnResume(count),
    zombie: () => gateway.zombie(),
    serveFile: (name, bytes, contentType) => rest.serveFile(name, bytes, contentType),
    dmChannelWith: (recipient) => rest.dmChannelWith(recipient),
    async close() {
      gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An INTERACTION_CREATE payload as Discord sends it: member (with user) in a server, user in a DM. */
function interactionPayload(
  interaction: FakeInteraction,
  type: 2 | 3,
  place: InteractionPlace,
  by: FakeUser,
  bot: FakeUser,
  data: Record<string, unknown>,
  message?: Record<string, unknown>,
): Record<string, unknown> {
  const inGuild = place.guildId !== undefined;
  return {
    id: interaction.id,
    application_id: bot.id,
    type,
    token: interaction.token,
    version: 1,
    channel_id: place.channelId,
    channel: { id: place.channelId, type: inGuild ? 0 : 1 },
    ...(inGuild
      ? { guild_id: place.guildId, member: { user: by, roles: place.memberRoles ?? [], nick: null, joined_at: new Date().toISOString(), permissions: "0", deaf: false, mute: false, flags: 0 } }
      : { user: by }),
    data,
    ...(message ? { message } : {}),
    // Discord sends the user's client language with every interaction.
    locale: place.locale ?? "en-US",
    app_permissions: "0",
    entitlements: [],
    authorizing_integration_owners: {},
    context: inGuild ? 0 : 1,
  };
}

/** Polls `condition` until it holds; fails with `what` after the deadline. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await eventually(condition, what, timeoutMs);
}
