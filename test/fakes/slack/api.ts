/**
 * The fake Web API: POST /api/<method> with a form (application/x-www-form-urlencoded, as @slack/web-api sends)
 * or JSON body (with the token in the Authorization header), answered as Slack answers: HTTP 200 with
 * `{ok: true, ...}` or `{ok: false, error}`, 429 with Retry-After when rate limited, a 5xx when it is down. Tokens are
 * checked (not_authed, invalid_auth, not_allowed_token_type), and so are Slack's limits on messages and blocks.
 */
import { randomUUID } from "node:crypto";
import { nextTs } from "./events.js";
import { APP_TOKEN, BOT_TOKEN, TEAM_ID, admins, bot, dmOf, knownChannels, people, type FakeUser } from "./world.js";

/** Slack refuses a message text longer than this (it recommends 4,000). */
const MAX_TEXT = 40_000;
const MAX_BLOCKS = 50;
const MAX_SECTION_TEXT = 3_000;
const MAX_ACTIONS = 25;
const MAX_BUTTON_TEXT = 75;

export interface BotMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  blocks?: Array<Record<string, unknown>>;
  /** Every text it showed, the first included. */
  history: string[];
  deleted: boolean;
}

export interface Upload {
  id: string;
  filename: string;
  length: number;
  data?: Buffer;
  channel?: string;
  threadTs?: string;
  comment?: string;
}

export type Fault = { status: 429; retryAfter?: number } | { status: 500 | 502 | 503 } | { error: string } | { drop: true };

export interface ApiCall {
  method: string;
  status: number;
  error?: string;
  /** ms since the fake started. */
  at: number;
}

export class FakeSlackApi {
  readonly messages: BotMessage[] = [];
  /** ts -> the people's messages the fake knows (for reactions). */
  readonly userMessages = new Map<string, string>();
  readonly reactions = new Map<string, string[]>();
  readonly ephemerals: Array<{ channel: string; user: string; text: string }> = [];
  readonly uploads = new Map<string, Upload>();
  readonly calls: ApiCall[] = [];
  /** Mass or user pings found in what the bot posted or edited (<!everyone>, <!here>, <@U...>, <!subteam^...>). */
  readonly pings: string[] = [];
  scopes: string[];
  private readonly faults: Array<{ method: string | RegExp; fault: Fault; skip: number }> = [];
  private readonly tickets = new Set<string>();
  private readonly started = Date.now();

  constructor(
    private readonly baseUrl: () => string,
    scopes: string[],
  ) {
    this.scopes = scopes;
  }

  /** The next call of `method` (after `skip` more that succeed) meets `fault`. */
  failNext(method: string | RegExp, fault: Fault, skip = 0): void {
    this.faults.push({ method, fault, skip });
  }

  /** A ticket for the WebSocket URL apps.connections.open hands out; true once, when it was issued. */
  redeem(ticket: string): boolean {
    return this.tickets.delete(ticket);
  }

  sent(): BotMessage[] {
    return this.messages.filter((m) => !m.deleted);
  }

  /** Answers one call: status, headers and JSON body. */
  handle(method: string, params: Record<string, unknown>, authorization: string | undefined): { status: number; headers: Record<string, string>; body: unknown } {
    const fault = this.takeFault(method);
    const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      this.calls.push({ method, status, ...(typeof body.error === "string" ? { error: body.error } : {}), at: Date.now() - this.started });
      return { status, headers, body };
    };
    if (fault && "status" in fault) {
      if (fault.status === 429) return answer(429, { ok: false, error: "ratelimited" }, { "Retry-After": String(fault.retryAfter ?? 1) });
      return answer(fault.status, { ok: false, error: "service_unavailable" });
    }
    if (fault && "error" in fault) return answer(200, { ok: false, error: fault.error });
    // Status 0: the connection is dropped after the request arrived (it may have been carried out).
    if (fault && "drop" in fault) return answer(0, {});
    const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1] ?? (typeof params.token === "string" ? params.token : undefined);
    if (token === undefined) return answer(200, { ok: false, error: "not_authed" });
    const wantsApp = method === "apps.connections.open";
    if (token !== BOT_TOKEN && token !== APP_TOKEN) return answer(200, { ok: false, error: "invalid_auth" });
    if (wantsApp !== (token === APP_TOKEN)) return answer(200, { ok: false, error: "not_allowed_token_type" });
    const result = this.method(method, params);
    const headers: Record<string, string> = token === BOT_TOKEN ? { "X-OAuth-Scopes": this.scopes.join(",") } : {};
    return answer(200, result, headers);
  }

  private takeFault(method: string): Fault | undefined {
    const index = this.faults.findIndex((f) => (typeof f.method === "string" ? f.method === method : f.method.test(method)));
    const entry = this.faults[index];
    if (!entry) return undefined;
    if (entry.skip > 0) {
      entry.skip -= 1;
      return undefined;
    }
    return this.faults.splice(index, 1)[0]!.fault;
  }

  private method(method: string, p: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case "auth.test":
        return { ok: true, url: "https://fake.slack.com/", team: "Fake Team", user: bot.name, team_id: TEAM_ID, user_id: bot.userId, bot_id: bot.botId };
      case "apps.connections.open": {
        const ticket = randomUUID();
        this.tickets.add(ticket);
        return { ok: true, url: `${this.baseUrl().replace(/^http/, "ws")}/link/?ticket=${ticket}` };
      }
      case "chat.postMessage":
        return this.post(p);
      case "chat.update":
        return this.update(p);
      case "chat.delete": {
        const message = this.find(p.channel, p.ts);
        if (!message) return { ok: false, error: "message_not_found" };
        message.deleted = true;
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case "chat.postEphemeral": {
        if (typeof p.user !== "string" || typeof p.text !== "string") return { ok: false, error: "invalid_arguments" };
        if (!this.channelOf(p.channel)) return { ok: false, error: "channel_not_found" };
        this.ephemerals.push({ channel: String(p.channel), user: p.user, text: p.text });
        this.notePings(p.text);
        return { ok: true, message_ts: nextTs() };
      }
      case "reactions.add":
      case "reactions.remove":
        return this.react(method === "reactions.add", p);
      case "files.getUploadURLExternal": {
        const length = Number(p.length);
        if (typeof p.filename !== "string" || !Number.isInteger(length) || length <= 0) return { ok: false, error: "invalid_arguments" };
        const id = `F${randomUUID().replace(/-/g, "").slice(0, 9).toUpperCase()}`;
        this.uploads.set(id, { id, filename: p.filename, length });
        return { ok: true, upload_url: `${this.baseUrl()}/upload/v1/${id}`, file_id: id };
      }
      case "files.completeUploadExternal":
        return this.complete(p);
      case "conversations.open": {
        const users = typeof p.users === "string" ? p.users.split(",") : [];
        if (users.length !== 1 || !/^[UW]/.test(users[0]!)) return { ok: false, error: users.length > 1 ? "not_implemented" : "user_not_found" };
        if (!this.scopes.includes("im:write")) return { ok: false, error: "missing_scope", needed: "im:write" };
        return { ok: true, channel: { id: dmOf({ id: users[0]!, name: "" } as FakeUser) } };
      }
      case "users.info": {
        if (!this.scopes.includes("users:read")) return { ok: false, error: "missing_scope", needed: "users:read" };
        const person = people.find((u) => u.id === p.user);
        if (!person) return { ok: false, error: "user_not_found" };
        const locale = truthy(p.include_locale) && person.locale !== undefined ? { locale: person.locale } : {};
        return { ok: true, user: { id: person.id, team_id: TEAM_ID, name: person.name, real_name: person.name, deleted: false, is_bot: false, ...locale } };
      }
      case "usergroups.list":
        return { ok: true, usergroups: [{ id: admins.id, handle: admins.handle, ...(truthy(p.include_users) ? { users: admins.users } : {}) }] };
      default:
        return { ok: false, error: "unknown_method" };
    }
  }

  private post(p: Record<string, unknown>): Record<string, unknown> {
    const channel = this.channelOf(p.channel);
    if (!channel) return { ok: false, error: "channel_not_found" };
    const checked = this.checkContent(p);
    if ("error" in checked) return { ok: false, ...checked };
    const threadTs = typeof p.thread_ts === "string" ? p.thread_ts : undefined;
    const message: BotMessage = { channel, ts: nextTs(), text: checked.text, history: [checked.text], deleted: false, ...(threadTs ? { threadTs } : {}), ...(checked.blocks ? { blocks: checked.blocks } : {}) };
    this.messages.push(message);
    return { ok: true, channel, ts: message.ts, message: { type: "message", text: message.text, user: bot.userId, bot_id: bot.botId, ts: message.ts } };
  }

  private update(p: Record<string, unknown>): Record<string, unknown> {
    const message = this.find(p.channel, p.ts);
    if (!message) return { ok: false, error: this.userMessages.has(String(p.ts)) ? "cant_update_message" : "message_not_found" };
    const checked = this.checkContent(p);
    if ("error" in checked) return { ok: false, ...checked };
    message.text = checked.text;
    message.history.push(checked.text);
    if (checked.blocks) message.blocks = checked.blocks;
    else if ("blocks" in p) delete message.blocks;
    return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
  }

  private react(add: boolean, p: Record<string, unknown>): Record<string, unknown> {
    const ts = String(p.timestamp);
    if (typeof p.name !== "string" || !this.channelOf(p.channel)) return { ok: false, error: "channel_not_found" };
    if (!this.userMessages.has(ts) && !this.find(p.channel, ts)) return { ok: false, error: "message_not_found" };
    const key = `${String(p.channel)}/${ts}`;
    const now = this.reactions.get(key) ?? [];
    if (add && now.includes(p.name)) return { ok: false, error: "already_reacted" };
    if (!add && !now.includes(p.name)) return { ok: false, error: "no_reaction" };
    this.reactions.set(key, add ? [...now, p.name] : now.filter((n) => n !== p.name));
    return { ok: true };
  }

  private complete(p: Record<string, unknown>): Record<string, unknown> {
    const files = parseJson(p.files);
    if (!Array.isArray(files) || files.length === 0) return { ok: false, error: "invalid_arguments" };
    const channel = p.channel_id === undefined ? undefined : this.channelOf(p.channel_id);
    if (p.channel_id !== undefined && !channel) return { ok: false, error: "channel_not_found" };
    const done: Array<Record<string, unknown>> = [];
    for (const entry of files as Array<{ id?: string; title?: string }>) {
      const upload = entry.id === undefined ? undefined : this.uploads.get(entry.id);
      if (!upload?.data) return { ok: false, error: "file_not_found" };
      Object.assign(upload, { ...(channel ? { channel } : {}), ...(typeof p.thread_ts === "string" ? { threadTs: p.thread_ts } : {}), ...(typeof p.initial_comment === "string" ? { comment: p.initial_comment } : {}) });
      if (upload.comment) this.notePings(upload.comment);
      done.push({ id: upload.id, name: upload.filename, title: entry.title ?? upload.filename, size: upload.data.length });
    }
    return { ok: true, files: done };
  }

  /** The upload URL's answer: the bytes announced, in a multipart body or raw. */
  receiveUpload(id: string, data: Buffer): number {
    const upload = this.uploads.get(id);
    if (!upload || upload.data) return 404;
    upload.data = data;
    return 200;
  }

  private checkContent(p: Record<string, unknown>): { text: string; blocks?: Array<Record<string, unknown>> } | { error: string } {
    const blocks = p.blocks === undefined ? undefined : parseJson(p.blocks);
    if (blocks !== undefined && !validBlocks(blocks)) return { error: "invalid_blocks" };
    const text = typeof p.text === "string" ? p.text : "";
    if (text === "" && blocks === undefined) return { error: "no_text" };
    if (text.length > MAX_TEXT) return { error: "msg_too_long" };
    this.notePings(text);
    for (const block of (blocks as Array<{ text?: { text?: string } }> | undefined) ?? []) this.notePings(block.text?.text ?? "");
    return { text, ...(blocks !== undefined ? { blocks: blocks as Array<Record<string, unknown>> } : {}) };
  }

  private notePings(text: string): void {
    for (const match of text.matchAll(/<(![a-z]+(?:\^[^>|]+)?|@[UW][A-Z0-9]+)(?:\|[^>]*)?>/g)) this.pings.push(match[1]!);
  }

  private channelOf(channel: unknown): string | undefined {
    if (typeof channel !== "string") return undefined;
    // A user id posts into the person's DM with the bot.
    if (channel.startsWith("U")) return dmOf({ id: channel, name: "" } as FakeUser);
    return knownChannels().has(channel) ? channel : undefined;
  }

  private find(channel: unknown, ts: unknown): BotMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
  }
}

function truthy(value: unknown): boolean {
  return value === true || value === "true" || value === "1" || value === 1;
}

function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function validBlocks(blocks: unknown): boolean {
  if (!Array.isArray(blocks) || blocks.length > MAX_BLOCKS) return false;
  return blocks.every((block: { type?: unknown; text?: { type?: unknown; text?: unknown }; elements?: unknown }) => {
    if (block.type === "section") return typeof block.text?.text === "string" && block.text.text.length > 0 && block.text.text.length <= MAX_SECTION_TEXT;
    if (block.type === "actions") {
      const elements = block.elements;
      return (
        Array.isArray(elements) &&
        elements.length > 0 &&
        elements.length <= MAX_ACTIONS &&
        elements.every((e: { type?: unknown; action_id?: unknown; text?: { text?: unknown } }) => e.type === "button" && typeof e.action_id === "string" && typeof e.text?.text === "string" && e.text.text.length <= MAX_BUTTON_TEXT)
      );
    }
    return typeof block.type === "string";
  });
}
