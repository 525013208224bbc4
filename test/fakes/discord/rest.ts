/**
 * The fake Discord REST API (`/api/v10/...`) and attachment downloads. Every reply carries a JSON content type,
 * as discord.js needs. Messages the bot creates (JSON or multipart with `files[n]` + `payload_json`) are recorded
 * with their files. Faults (429 with Retry-After, 500) can be queued for the next matching request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { snowflake, type FakeChannel, type FakeGuild, type FakeUser } from "./world.js";

export interface PostedFile {
  field: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface PostedMessage {
  id: string;
  channelId: string;
  /** The JSON body, or the parsed `payload_json` part of a multipart request. */
  payload: Record<string, unknown>;
  files: PostedFile[];
  /** Set by DELETE: the message is gone from the channel. */
  deleted?: boolean;
}

/** A PATCH of a message's content, with the time the fake received it. */
export interface MessageEdit {
  messageId: string;
  channelId: string;
  content: string;
  at: number;
}

export interface RestFault {
  method?: string;
  /** Matches the path after /api/v10, e.g. /channels/123/messages. */
  path: RegExp;
  status: 429 | 500 | 401 | 403;
  retryAfterSec?: number;
}

export interface RestLogEntry {
  method: string;
  path: string;
  status: number;
}

export interface DmChannel {
  id: string;
  type: 1;
  recipients: FakeUser[];
}

export interface RestState {
  token: string;
  bot: FakeUser;
  applicationFlags: number;
  guilds: FakeGuild[];
  gatewayUrl: () => string;
  baseUrl: () => string;
}

export class FakeRest {
  readonly messages: PostedMessage[] = [];
  readonly edits: MessageEdit[] = [];
  /** The bot's own reactions now: "channelId/messageId" -> emoji. */
  readonly reactions = new Map<string, string[]>();
  readonly typing: string[] = [];
  readonly log: RestLogEntry[] = [];
  readonly dmChannels: DmChannel[] = [];
  /** Every message in the channels, users' and the bot's, as GET /channels/:id/messages lists them. */
  readonly history: Array<Record<string, unknown> & { id: string; channel_id: string }> = [];
  private readonly faults: RestFault[] = [];
  private readonly files = new Map<string, { bytes: Buffer; contentType: string }>();

  constructor(private readonly state: RestState) {}

  failNext(fault: RestFault): void {
    this.faults.push(fault);
  }

  /** Serves `bytes` as an attachment; returns its URL. */
  serveFile(name: string, bytes: Buffer, contentType: string): string {
    const path = `/attachments/${snowflake()}/${snowflake()}/${encodeURIComponent(name)}`;
    this.files.set(path, { bytes, contentType });
    return `${this.state.baseUrl()}${path}?ex=1&is=2&hm=3`;
  }

  /** The DM channel between the bot and `recipient` (created on first use, as Discord does). */
  dmChannelWith(recipient: FakeUser): DmChannel {
    const existing = this.dmChannels.find((c) => c.recipients[0]?.id === recipient.id);
    if (existing) return existing;
    const created: DmChannel = { id: snowflake(), type: 1, recipients: [recipient] };
    this.dmChannels.push(created);
    return created;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const body = await readBody(req);
    const reply = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
      this.log.push({ method, path: url.pathname, status });
      // A 204 has no body, so no content type (discord.js would try to parse the empty body as JSON).
      res.writeHead(status, { ...(status === 204 ? {} : { "content-type": "application/json" }), ...headers });
      res.end(json === undefined ? undefined : JSON.stringify(json));
    };

    if (url.pathname.startsWith("/attachments/")) {
      const file = this.files.get(url.pathname);
      this.log.push({ method, path: url.pathname, status: file ? 200 : 404 });
      res.writeHead(file ? 200 : 404, { "content-type": file?.contentType ?? "application/json" });
      res.end(file?.bytes ?? JSON.stringify({ message: "404: Not Found", code: 0 }));
      return;
    }
    if (!url.pathname.startsWith("/api/v10/")) return reply(404, { message: "404: Not Found", code: 0 });
    const path = url.pathname.slice("/api/v10".length);
    if (req.headers.authorization !== `Bot ${this.state.token}`) return reply(401, { message: "401: Unauthorized", code: 0 });

    const faultIndex = this.faults.findIndex((f) => f.path.test(path) && (f.method ?? method) === method);
    if (faultIndex >= 0) {
      const [fault] = this.faults.splice(faultIndex, 1);
      if (fault!.status === 429) {
        const retryAfter = fault!.retryAfterSec ?? 0.05;
        return reply(429, { message: "You are being rate limited.", retry_after: retryAfter, global: false }, { "retry-after": String(retryAfter) });
      }
      return reply(fault!.status, { message: `fake fault ${fault!.status}`, code: 0 });
    }

    const route = `${method} ${path.replace(/\d{17,20}/g, ":id")}`;
    const [id = "", messageId = ""] = path.match(/\d{17,20}/g) ?? [];
    const reaction = /^\/channels\/\d+\/messages\/\d+\/reactions\/([^/]+)\/@me$/.exec(path);
    if (reaction && (method === "PUT" || method === "DELETE")) {
      if (!this.knowsChannel(id)) return reply(404, { message: "Unknown Channel", code: 10003 });
      const key = `${id}/${messageId}`;
      const emoji = decodeURIComponent(reaction[1]!);
      const others = (this.reactions.get(key) ?? []).filter((e) => e !== emoji);
      this.reactions.set(key, method === "PUT" ? [...others, emoji] : others);
      return reply(204);
    }
    switch (route) {
      case "GET /gateway/bot":
        return reply(200, {
          url: this.state.gatewayUrl(),
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
        });
      case "GET /users/@me":
        return reply(200, this.state.bot);
      case "GET /applications/@me":
        return reply(200, { id: this.state.bot.id, name: this.state.bot.username, flags: this.state.applicationFlags, approximate_guild_count: this.state.guilds.length });
      case "GET /users/@me/guilds":
        return reply(200, this.state.guilds.map((g) => ({ id: g.id, name: g.name })));
      case "POST /users/@me/channels": {
        const recipientId = (JSON.parse(body.toString("utf8") || "{}") as { recipient_id?: string }).recipient_id;
        return reply(200, this.dmChannelWith({ id: recipientId ?? "0", username: "someone", discriminator: "0", avatar: null }));
      }
      case "POST /channels/:id/typing":
        if (!this.knowsChannel(id)) return reply(404, { message: "Unknown Channel", code: 10003 });
        this.typing.push(id);
        return reply(204);
      case "POST /channels/:id/messages": {
        if (!this.knowsChannel(id)) return reply(404, { message: "Unknown Channel", code: 10003 });
        const posted = await parseMessageBody(req, body);
        const message = { id: snowflake(), channelId: id, ...posted };
        this.messages.push(message);
        const created = {
          id: message.id,
          channel_id: id,
          type: 0,
          author: this.state.bot,
          content: String(message.payload.content ?? ""),
          timestamp: new Date().toISOString(),
          mentions: [],
          attachments: message.files.map((f) => ({ id: snowflake(), filename: f.name, size: f.bytes.length })),
        };
        this.history.push(created);
        return reply(200, created);
      }
      case "GET /channels/:id/messages": {
        if (!this.knowsChannel(id)) return reply(404, { message: "Unknown Channel", code: 10003 });
        // As Discord: the `limit` (1-100, default 50) oldest messages after `after`, listed newest first; REST
        // messages carry neither guild_id nor member.
        const after = BigInt(url.searchParams.get("after") ?? "0");
        const limit = Math.min(100, Math.max(1, Number(url.searchParams.get("limit") ?? 50)));
        const listed = this.history
          .filter((m) => m.channel_id === id && BigInt(m.id) > after)
          .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
          .slice(0, limit)
          .map(({ guild_id: _guild, member: _member, ...rest }) => rest)
          .reverse();
        return reply(200, listed);
      }
      case "PATCH /channels/:id/messages/:id": {
        const message = this.messages.find((m) => m.id === messageId && m.channelId === id && !m.deleted);
        if (!message) return reply(404, { message: "Unknown Message", code: 10008 });
        const content = String((JSON.parse(body.toString("utf8") || "{}") as { content?: unknown }).content ?? "");
        if ([...content].length > 2000) return reply(400, { message: "Invalid Form Body", code: 50035 });
        message.payload = { ...message.payload, content };
        this.edits.push({ messageId, channelId: id, content, at: Date.now() });
        return reply(200, { id: messageId, channel_id: id, author: this.state.bot, content, timestamp: new Date().toISOString(), attachments: [] });
      }
      case "DELETE /channels/:id/messages/:id": {
        const message = this.messages.find((m) => m.id === messageId && m.channelId === id && !m.deleted);
        if (!message) return reply(404, { message: "Unknown Message", code: 10008 });
        message.deleted = true;
        return reply(204);
      }
      default:
        return reply(404, { message: `fake-discord: no route ${route}`, code: 0 });
    }
  }

  private knowsChannel(id: string): boolean {
    const guildChannels: FakeChannel[] = this.state.guilds.flatMap((g) => [...g.channels, ...g.threads]);
    return guildChannels.some((c) => c.id === id) || this.dmChannels.some((c) => c.id === id);
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** JSON, or multipart/form-data parsed by the platform's own parser (undici's FormData). */
async function parseMessageBody(req: IncomingMessage, body: Buffer): Promise<{ payload: Record<string, unknown>; files: PostedFile[] }> {
  const contentType = req.headers["content-type"] ?? "";
  if (!contentType.startsWith("multipart/form-data")) return { payload: JSON.parse(body.toString("utf8")) as Record<string, unknown>, files: [] };
  const form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
  const files: PostedFile[] = [];
  let payload: Record<string, unknown> = {};
  for (const [field, value] of form.entries()) {
    if (typeof value === "string") {
      if (field === "payload_json") payload = JSON.parse(value) as Record<string, unknown>;
      continue;
    }
    files.push({ field, name: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
  }
  return { payload, files };
}
