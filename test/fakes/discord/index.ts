/**
 * A fake Discord for tests: one real HTTP server on 127.0.0.1 (port 0) serving the REST API under /api, the
 * WebSocket gateway at /gateway (its URL comes from GET /gateway/bot, as with Discord) and attachment downloads.
 * discord.js talks to it unmodified: `rest.api = fake.apiUrl`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeGateway, type GatewayStats } from "./gateway.js";
import { FakeRest, type DmChannel, type MessageEdit, type PostedMessage, type RestFault, type RestLogEntry } from "./rest.js";
import { FAKE_TOKEN, MESSAGE_CONTENT_FLAG, standardWorld, user, type FakeGuild, type FakeUser, type StandardWorld } from "./world.js";
import { eventually } from "../../helpers/wait.js";

export * from "./world.js";
export type { PostedMessage, RestFault, DmChannel, MessageEdit } from "./rest.js";

export interface FakeDiscordOptions {
  /** Default 41250 ms, as Discord; the watchdog tests use a short one. */
  heartbeatIntervalMs?: number;
  applicationFlags?: number;
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
  /** The bot's own reactions now: "channelId/messageId" -> emoji. */
  reactions: Map<string, string[]>;
  /** Channel ids of typing requests. */
  typing: string[];
  /** Every REST request with its answer's status. */
  requests: RestLogEntry[];
  gateway: GatewayStats;
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
  const rest = new FakeRest({ ...shared, gatewayUrl, baseUrl: () => base });
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
    reactions: rest.reactions,
    typing: rest.typing,
    requests: rest.log,
    gateway: gateway.stats,
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

/** Polls `condition` until it holds; fails with `what` after the deadline. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await eventually(condition, what, timeoutMs);
}
