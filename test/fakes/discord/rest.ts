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
  /** The whole JSON body. */
  payload: Record<string, unknown>;
  at: number;
}

/** A mention in a message the bot created or edited that Discord would notify, as "@everyone", "<@&role>", "<@user>". */
export interface Ping {
  messageId: string;
  mention: string;
}

/** An interaction the fake dispatched, and what the bot answered through its callback and webhook. */
export interface FakeInteraction {
  id: string;
  token: string;
  kind: "component" | "command";
  channelId: string;
  /** The message whose button was pressed. */
  messageId?: string;
  /** The callback's response type (4 message, 5 deferred message, 6 deferred update, 7 update), once answered. */
  responseType?: number;
  responseData?: Record<string, unknown>;
  /** The response message's content now (type 4, or 5 then edited through the webhook). */
  original?: string;
  /** Set when the bot deleted its response (DELETE .../messages/@original). */
  deleted?: boolean;
  /** The components under the response message (set through the webhook). */
  originalComponents?: unknown[];
  followUps: string[];
}

/** A slash command as registered: where ("global" or a guild id), name, description, options. */
export interface RegisteredCommand {
  name: string;
  description: string;
  description_localizations?: Record<string, string>;
  options: Array<{ name: string; type: number; description: string; description_localizations?: Record<string, string>; required?: boolean }>;
}

/**
 * The next matching call fails: answered with `status`, or with `lostAnswer` carried out and then its connection
 * cut before the answer (the client cannot tell whether it arrived).
 */
export type RestFault = {
  method?: string;
  /** Matches the path after /api/v10, e.g. /channels/123/messages. */
  path: RegExp;
} & ({ status: 429 | 500 | 401 | 403; retryAfterSec?: number } | { lostAnswer: true });

/** How long Discord remembers an enforced nonce ("the past few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

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
  /** Stamps edits. */
  now: () => number;
}

export class FakeRest {
  readonly messages: PostedMessage[] = [];
  readonly edits: MessageEdit[] = [];
  /** Mentions Discord would have notified, by the allowed_mentions of the create or edit that carried them. */
  readonly pings: Ping[] = [];
  /** The bot's own reactions now: "channelId/messageId" -> emoji. */
  readonly reactions = new Map<string, string[]>();
  readonly typing: string[] = [];
  readonly log: RestLogEntry[] = [];
  readonly dmChannels: DmChannel[] = [];
  /** Every message in the channels, users' and the bot's, as GET /channels/:id/messages lists them. */
  readonly history: Array<Record<string, unknown> & { id: string; channel_id: string }> = [];
  readonly interactions: FakeInteraction[] = [];
  /** Application commands by scope: "global" or a guild id. */
  readonly commands = new Map<string, RegisteredCommand[]>();
  /** Every button a message ever carried (a client may still show removed ones): messageId -> buttons. */
  readonly shownButtons = new Map<string, Array<{ label: string; custom_id: string }>>();
  private readonly faults: RestFault[] = [];
  /** The bot's messages created with enforce_nonce, by nonce: answered again instead of a new message. */
  private readonly nonces = new Map<string, { at: number; created: Record<string, unknown> }>();
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
    let lostAnswer = false;
    const reply = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
      if (lostAnswer) {
        this.log.push({ method, path: url.pathname, status: 0 });
        res.destroy();
        return;
      }
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
    // Interaction callbacks and webhooks are authorized by the interaction's token, not the bot's.
    const interactionRoute = /^\/(interactions\/(\d+)\/([^/]+)\/callback|webhooks\/(\d+)\/([^/]+)(\/messages\/@original)?)$/.exec(decodeURIComponent(path));
    if (interactionRoute) return this.interactionCall(method, interactionRoute, body, reply);
    if (req.headers.authorization !== `Bot ${this.state.token}`) return reply(401, { message: "401: Unauthorized", code: 0 });

    const faultIndex = this.faults.findIndex((f) => f.path.test(path) && (f.method ?? method) === method);
    if (faultIndex >= 0) {
      const fault = this.faults.splice(faultIndex, 1)[0]!;
      if ("lostAnswer" in fault) lostAnswer = true;
      else if (fault.status === 429) {
        const retryAfter = fault.retryAfterSec ?? 0.05;
        return reply(429, { message: "You are being rate limited.", retry_after: retryAfter, global: false }, { "retry-after": String(retryAfter) });
      } else return reply(fault.status, { message: `fake fault ${fault.status}`, code: 0 });
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
      case "PUT /applications/:id/commands":
      case "PUT /applications/:id/guilds/:id/commands": {
        if (id !== this.state.bot.id) return reply(403, { message: "Missing Access", code: 50001 });
        const scope = route.includes("guilds") ? messageId : "global";
        const commands = JSON.parse(body.toString("utf8") || "null") as RegisteredCommand[] | null;
        if (!Array.isArray(commands) || commands.some(commandProblem)) return reply(400, { message: "Invalid Form Body", code: 50035 });
        this.commands.set(scope, commands.map((c) => ({ name: c.name, description: c.description, ...localizationsOf(c), options: c.options ?? [] })));
        return reply(200, commands.map((c) => ({ ...c, id: snowflake(), application_id: this.state.bot.id, version: snowflake() })));
      }
      case "POST /channels/:id/messages": {
        if (!this.knowsChannel(id)) return reply(404, { message: "Unknown Channel", code: 10003 });
        const posted = await parseMessageBody(req, body);
        const problem = componentsProblem(posted.payload.components) ?? nonceProblem(posted.payload) ?? contentProblem(posted.payload.content);
        if (problem) return reply(400, { message: `Invalid Form Body: ${problem}`, code: 50035 });
        const voiceProblem = voiceMessageProblem(posted);
        if (voiceProblem) return reply(400, { message: voiceProblem, code: 50161 });
        const nonce = posted.payload.enforce_nonce === true ? String(posted.payload.nonce) : undefined;
        const earlier = nonce === undefined ? undefined : this.nonces.get(nonce);
        if (earlier && Date.now() - earlier.at < NONCE_WINDOW_MS) return reply(200, earlier.created);
        const message = { id: snowflake(), channelId: id, ...posted };
        this.showButtons(message.id, posted.payload.components);
        this.messages.push(message);
        this.notePings(message.id, posted.payload);
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
        if (nonce !== undefined) this.nonces.set(nonce, { at: Date.now(), created });
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
        const payload = JSON.parse(body.toString("utf8") || "{}") as Record<string, unknown>;
        const content = String(payload.content ?? "");
        const problem = contentProblem(content);
        if (problem) return reply(400, { message: `Invalid Form Body: ${problem}`, code: 50035 });
        message.payload = { ...message.payload, content };
        this.edits.push({ messageId, channelId: id, content, payload, at: this.state.now() });
        this.notePings(messageId, payload);
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

  /** Registers an interaction the fake is about to dispatch. */
  openInteraction(kind: FakeInteraction["kind"], channelId: string, messageId?: string): FakeInteraction {
    const interaction: FakeInteraction = { id: snowflake(), token: `itoken-${snowflake()}`, kind, channelId, followUps: [], ...(messageId ? { messageId } : {}) };
    this.interactions.push(interaction);
    return interaction;
  }

  /** POST /interactions/{id}/{token}/callback, PATCH /webhooks/{app}/{token}/messages/@original, POST /webhooks/{app}/{token}. */
  private interactionCall(method: string, match: RegExpExecArray, body: Buffer, reply: (status: number, json?: unknown) => void): void {
    const json = JSON.parse(body.toString("utf8") || "{}") as { type?: number; data?: Record<string, unknown>; content?: unknown; components?: unknown[] };
    const unknownWebhook = () => reply(404, { message: "Unknown Webhook", code: 10015 });
    if (match[2] !== undefined) {
      const interaction = this.interactions.find((i) => i.id === match[2] && i.token === match[3]);
      if (!interaction || method !== "POST") return reply(404, { message: "Unknown interaction", code: 10062 });
      if (interaction.responseType !== undefined) return reply(400, { message: "Interaction has already been acknowledged.", code: 40060 });
      const allowed = interaction.kind === "component" ? [4, 5, 6, 7] : [4, 5];
      if (json.type === undefined || !allowed.includes(json.type)) return reply(400, { message: "Invalid Form Body", code: 50035 });
      interaction.responseType = json.type;
      if (json.data) interaction.responseData = json.data;
      if (json.type === 4) {
        interaction.original = String(json.data?.content ?? "");
        this.notePings(`interaction ${interaction.id}`, json.data ?? {});
      }
      if (json.type === 7 && interaction.messageId) {
        const message = this.messages.find((m) => m.id === interaction.messageId);
        if (message) message.payload = { ...message.payload, ...json.data };
        this.showButtons(interaction.messageId, json.data?.components);
      }
      return reply(204);
    }
    const interaction = this.interactions.find((i) => i.token === match[5]);
    if (match[4] !== this.state.bot.id || !interaction || interaction.responseType === undefined) return unknownWebhook();
    if (match[6] !== undefined && method === "DELETE") {
      interaction.deleted = true;
      return reply(204);
    }
    const content = String(json.content ?? "");
    if (contentProblem(content) || content === "") return reply(400, { message: "Invalid Form Body", code: 50035 });
    const problem = componentsProblem(json.components);
    if (problem) return reply(400, { message: `Invalid Form Body: ${problem}`, code: 50035 });
    this.notePings(`interaction ${interaction.id}`, json);
    if (match[6] !== undefined && method === "PATCH") {
      interaction.original = content;
      if (json.components) interaction.originalComponents = json.components;
    }
    else if (match[6] === undefined && method === "POST") interaction.followUps.push(content);
    else return reply(405, { message: "405: Method Not Allowed", code: 0 });
    return reply(200, { id: snowflake(), channel_id: interaction.channelId, author: this.state.bot, content, timestamp: new Date().toISOString(), attachments: [] });
  }

  /** Discord's rule: without allowed_mentions, everyone, roles and users in the content are all parsed (on edits too). */
  private notePings(messageId: string, payload: Record<string, unknown>): void {
    const allowed = payload.allowed_mentions as { parse?: string[]; roles?: string[]; users?: string[] } | undefined;
    const parse = new Set(allowed ? (allowed.parse ?? []) : ["everyone", "roles", "users"]);
    for (const [mention, role, user] of String(payload.content ?? "").matchAll(/@everyone|@here|<@&(\d+)>|<@!?(\d+)>/g)) {
      const pinged =
        role !== undefined
          ? parse.has("roles") || (allowed?.roles ?? []).includes(role)
          : user !== undefined
            ? parse.has("users") || (allowed?.users ?? []).includes(user)
            : parse.has("everyone");
      if (pinged) this.pings.push({ messageId, mention });
    }
  }

  private showButtons(messageId: string, components: unknown): void {
    const rows = Array.isArray(components) ? (components as Array<{ components?: Array<{ label?: string; custom_id?: string }> }>) : [];
    const buttons = rows.flatMap((row) => row.components ?? []).map((b) => ({ label: String(b.label), custom_id: String(b.custom_id) }));
    this.shownButtons.set(messageId, [...(this.shownButtons.get(messageId) ?? []), ...buttons]);
  }

  private knowsChannel(id: string): boolean {
    const guildChannels: FakeChannel[] = this.state.guilds.flatMap((g) => [...g.channels, ...g.threads]);
    return guildChannels.some((c) => c.id === id) || this.dmChannels.some((c) => c.id === id);
  }
}

/** Discord's limits on message components: at most 5 action rows of at most 5 buttons, custom_id 1-100 characters. */
/** The locales Discord's clients speak: keys of `*_localizations` outside this list are refused. */
const DISCORD_LOCALES = new Set(["id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko"]);

/** Discord's checks of a command or option: names 1-32 lower-case, descriptions 1-100 characters in every locale. */
function commandProblem(item: { name?: unknown; description?: unknown; description_localizations?: unknown; options?: unknown }): boolean {
  const described = (text: unknown) => typeof text === "string" && text.length >= 1 && text.length <= 100;
  if (typeof item.name !== "string" || !/^[-_\p{Ll}\p{N}]{1,32}$/u.test(item.name) || !described(item.description)) return true;
  const localizations = item.description_localizations;
  if (localizations !== undefined && localizations !== null) {
    if (typeof localizations !== "object") return true;
    if (Object.entries(localizations).some(([locale, text]) => !DISCORD_LOCALES.has(locale) || !described(text))) return true;
  }
  return item.options !== undefined && (!Array.isArray(item.options) || (item.options as Array<Record<string, unknown>>).some(commandProblem));
}

function localizationsOf(item: { description_localizations?: Record<string, string> }): { description_localizations?: Record<string, string> } {
  return item.description_localizations ? { description_localizations: item.description_localizations } : {};
}

function componentsProblem(components: unknown): string | undefined {
  if (components === undefined) return undefined;
  if (!Array.isArray(components) || components.length > 5) return "components: at most 5 action rows";
  for (const row of components as Array<{ type?: number; components?: Array<{ type?: number; custom_id?: string; label?: string; style?: number }> }>) {
    if (row.type !== 1 || !Array.isArray(row.components) || row.components.length < 1 || row.components.length > 5) return "components: an action row holds 1-5 components";
    for (const button of row.components) {
      if (button.type !== 2 || typeof button.custom_id !== "string" || button.custom_id.length < 1 || button.custom_id.length > 100) return "components: button custom_id";
      if (typeof button.label !== "string" || button.label.length > 80 || ![1, 2, 3, 4].includes(button.style ?? 0)) return "components: button label or style";
    }
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Content is at most 2000 characters, counted as Discord counts them: in code points, not UTF-16 units. */
function contentProblem(content: unknown): string | undefined {
  return typeof content === "string" && [...content].length > 2000 ? "content: Must be 2000 or fewer in length." : undefined;
}

/** Discord's rule for a nonce: a string of at most 25 characters or an integer, and enforce_nonce only with one. */
const IS_VOICE_MESSAGE = 1 << 13;

/** As Discord: a voice message is one Ogg audio attachment with its duration and waveform, and nothing else. */
function voiceMessageProblem(posted: { payload: Record<string, unknown>; files: PostedFile[] }): string | undefined {
  const flags = Number(posted.payload.flags ?? 0);
  if ((flags & IS_VOICE_MESSAGE) === 0) return undefined;
  if (String(posted.payload.content ?? "") !== "" || posted.payload.embeds !== undefined) return "Voice messages do not support additional content.";
  const attachments = posted.payload.attachments as Array<Record<string, unknown>> | undefined;
  if (posted.files.length !== 1 || attachments?.length !== 1) return "Voice messages must have a single audio attachment.";
  const [meta] = attachments;
  if (typeof meta!.duration_secs !== "number" || typeof meta!.waveform !== "string") return "Voice messages must have a duration and a waveform.";
  if (Buffer.from(meta!.waveform, "base64").length > 256) return "Voice message waveform is too long.";
  return undefined;
}

function nonceProblem(payload: Record<string, unknown>): string | undefined {
  const { nonce, enforce_nonce: enforce } = payload;
  if (nonce === undefined) return enforce === true ? "enforce_nonce without a nonce" : undefined;
  if (typeof nonce === "string" ? nonce.length > 25 : !Number.isInteger(nonce)) return "nonce: must be at most 25 characters or an integer";
  return undefined;
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
