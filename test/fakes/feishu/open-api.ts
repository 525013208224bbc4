/**
 * The fake Feishu Open API: tenant tokens, bot info, sending and replying (with uuid idempotency), image and file
 * uploads (multipart), message resources (binary), the long-connection endpoint, CardKit (cardkit.ts) and changes
 * to sent messages: edits, recalls, reactions (message-edits.ts). Answers are shaped like Feishu's, business errors
 * included (`{code, msg}` with HTTP 400, or 200 where Feishu does so). Faults are injected per path (and
 * optionally HTTP method): a status and code for the next N calls, optionally after doing the work (a lost answer).
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { json, refusal, type Answer } from "./answers.js";
import { FakeCardKit } from "./cardkit.js";
import { checkContent, isRecord } from "./content-rules.js";
import { FakeMessageEdits } from "./message-edits.js";
import { parseJson, readBody } from "../http-body.js";

export interface BotSent {
  messageId: string;
  /** undefined when the answered message is unknown to the fake. */
  chatId: string | undefined;
  msgType: string;
  /** The parsed content. */
  content: Record<string, unknown>;
  replyTo?: string;
  replyInThread: boolean;
  uuid?: string;
  /** The CardKit card entity the message shows; its content is that card as it is now. */
  cardId?: string;
  /** Recalled. */
  deleted?: boolean;
}

export interface Upload {
  key: string;
  name: string;
  bytes: Buffer;
  fileType?: string;
  duration?: number;
}

export interface FaultAnswer {
  /** 0: the connection is cut without an answer (a network error). */
  status: number;
  code?: number;
  msg?: string;
  headers?: Record<string, string>;
}

interface Fault {
  match: RegExp;
  /** Only requests with this HTTP method; any when absent. */
  method: string | undefined;
  remaining: number;
  answer: FaultAnswer;
  afterProcessing: boolean;
}

export interface OpenApiOptions {
  appId: string;
  appSecret: string;
  botOpenId: string;
  botName: string;
  tokenLifetimeSec: number;
  /** The ws:// URL the endpoint hands out. */
  socketUrl: () => string;
  /** Answer the endpoint with this refusal (the app may not use a long connection). */
  refuseLongConnection?: { code: number; msg: string };
  /** Stamps card updates and message edits. */
  now: () => number;
}

const FILE_TYPES = new Set(["opus", "mp4", "pdf", "doc", "xls", "ppt", "stream"]);
const TOKEN_REJECTED = {
  status: 400,
  code: 99991663,
  msg: "Invalid access token for authorization. Please make a request with token attached.",
};
const TOO_LARGE = { status: 400, code: 234006, msg: "The file size exceed the max value." };

export class FakeOpenApi {
  readonly sent: BotSent[] = [];
  readonly images = new Map<string, Upload>();
  readonly files = new Map<string, Upload>();
  readonly resourceRequests: Array<{ messageId: string; fileKey: string; type: string }> = [];
  readonly changes = new EventEmitter();
  readonly cardkit: FakeCardKit;
  readonly messageEdits: FakeMessageEdits;
  tokensIssued = 0;
  private readonly validTokens = new Set<string>();
  private readonly chatOfMessage = new Map<string, string>();
  private readonly resources = new Map<string, { bytes: Buffer; mime: string; type: "image" | "file" }>();
  private readonly byUuid = new Map<string, BotSent>();
  /** The uuid of each send answered with the message an earlier send with that uuid created. */
  readonly repeatedUuids: string[] = [];
  private readonly faults: Fault[] = [];
  private counter = 0;

  constructor(private readonly opts: OpenApiOptions) {
    this.cardkit = new FakeCardKit(() => this.changes.emit("change"), opts.now);
    this.messageEdits = new FakeMessageEdits(
      (id) => this.sent.find((s) => s.messageId === id),
      (id) => this.chatOfMessage.has(id),
      () => this.changes.emit("change"),
      opts.now,
    );
  }

  /** A message the bot may answer (pushed events record theirs). */
  knowMessage(messageId: string, chatId: string): void {
    this.chatOfMessage.set(messageId, chatId);
  }

  addResource(messageId: string, fileKey: string, type: "image" | "file", bytes: Buffer, mime: string): void {
    this.resources.set(`${messageId}/${fileKey}`, { bytes, mime, type });
  }

  /** Every token issued so far stops working, as when Feishu expires or revokes them. */
  expireTokens(): void {
    this.validTokens.clear();
  }

  /** The next `times` calls whose path matches `match` get `answer`; with afterProcessing the work is done first. */
  fail(match: RegExp, times: number, answer: FaultAnswer, opts: { afterProcessing?: boolean; method?: string } = {}): void {
    this.faults.push({ match, method: opts.method, remaining: times, answer, afterProcessing: opts.afterProcessing ?? false });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    const fault = this.takeFault(req.method ?? "", url.pathname);
    if (fault && !fault.afterProcessing) return send(res, faultAnswer(fault.answer));
    const answer = await this.route(req, url, body);
    send(res, fault ? faultAnswer(fault.answer) : answer);
  }

  private async route(req: IncomingMessage, url: URL, body: Buffer): Promise<Answer> {
    const path = url.pathname;
    if (req.method === "POST" && path === "/open-apis/auth/v3/tenant_access_token/internal") return this.issueToken(parseJson(body));
    if (req.method === "POST" && path === "/callback/ws/endpoint") return this.socketEndpoint(parseJson(body));
    if (!this.authorized(req)) return refusal(TOKEN_REJECTED);
    if (req.method === "GET" && path === "/open-apis/bot/v3/info") {
      const botInfo = { activate_status: 2, app_name: this.opts.botName, avatar_url: "", ip_white_list: [], open_id: this.opts.botOpenId };
      return json(200, { code: 0, msg: "ok", bot: botInfo });
    }
    if (req.method === "POST" && path === "/open-apis/im/v1/messages") return this.create(url, parseJson(body));
    const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(path);
    if (req.method === "POST" && reply) return this.reply(decodeURIComponent(reply[1]!), parseJson(body));
    if (req.method === "POST" && path === "/open-apis/im/v1/images") return this.uploadImage(req, body);
    if (req.method === "POST" && path === "/open-apis/im/v1/files") return this.uploadFile(req, body);
    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(path);
    if (req.method === "GET" && resource) {
      return this.resource(decodeURIComponent(resource[1]!), decodeURIComponent(resource[2]!), url);
    }
    return this.routeChanges(req.method ?? "", path, parseJson(body));
  }

  /** CardKit, edits, recalls and reactions. */
  private routeChanges(method: string, path: string, body: unknown): Answer {
    const { cardkit, messageEdits } = this;
    if (method === "POST" && path === "/open-apis/cardkit/v1/cards") return cardkit.create(body);
    const element = /^\/open-apis\/cardkit\/v1\/cards\/([^/]+)\/elements\/([^/]+)\/content$/.exec(path);
    if (method === "PUT" && element) return cardkit.streamContent(decodeURIComponent(element[1]!), decodeURIComponent(element[2]!), body);
    const settings = /^\/open-apis\/cardkit\/v1\/cards\/([^/]+)\/settings$/.exec(path);
    if (method === "PATCH" && settings) return cardkit.settings(decodeURIComponent(settings[1]!), body);
    const message = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(path);
    const messageId = message ? decodeURIComponent(message[1]!) : "";
    if (method === "PATCH" && message) return messageEdits.patch(messageId, body);
    if (method === "PUT" && message) return messageEdits.put(messageId, body);
    if (method === "DELETE" && message) return messageEdits.recall(messageId);
    const reactions = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reactions(?:\/([^/]+))?$/.exec(path);
    if (method === "POST" && reactions && reactions[2] === undefined) return messageEdits.addReaction(decodeURIComponent(reactions[1]!), body);
    if (method === "DELETE" && reactions && reactions[2] !== undefined) {
      return messageEdits.removeReaction(decodeURIComponent(reactions[1]!), decodeURIComponent(reactions[2]));
    }
    return json(404, { code: 404, msg: `fake-feishu: no route for ${method} ${path}` });
  }

  private issueToken(body: unknown): Answer {
    if (!isRecord(body) || body.app_id !== this.opts.appId || body.app_secret !== this.opts.appSecret) {
      return json(400, { code: 10014, msg: "app secret invalid" });
    }
    const token = `t-fake-${++this.tokensIssued}-${randomUUID()}`;
    this.validTokens.add(token);
    return json(200, { code: 0, msg: "ok", tenant_access_token: token, expire: this.opts.tokenLifetimeSec });
  }

  private socketEndpoint(body: unknown): Answer {
    if (!isRecord(body) || body.AppID !== this.opts.appId || body.AppSecret !== this.opts.appSecret) {
      return json(200, { code: 514, msg: "auth failed", data: {} });
    }
    const refused = this.opts.refuseLongConnection;
    if (refused) return json(200, { code: refused.code, msg: refused.msg, data: {} });
    const ClientConfig = { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 0.05, ReconnectNonce: 0 };
    return json(200, { code: 0, msg: "ok", data: { URL: this.opts.socketUrl(), ClientConfig } });
  }

  private authorized(req: IncomingMessage): boolean {
    const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "");
    return match !== null && this.validTokens.has(match[1]!);
  }

  private create(url: URL, body: unknown): Answer {
    const idType = url.searchParams.get("receive_id_type");
    if (!idType || !["chat_id", "open_id", "user_id", "union_id", "email"].includes(idType)) {
      return refusal({ status: 400, code: 230001, msg: "invalid request param: receive_id_type" });
    }
    if (!isRecord(body) || typeof body.receive_id !== "string" || body.receive_id === "") {
      return refusal({ status: 400, code: 230001, msg: "invalid request param: receive_id" });
    }
    // An id of one kind given as another is refused, as Feishu does (oc_ chat ids, ou_ open ids).
    const prefix = { chat_id: "oc_", open_id: "ou_" }[idType as "chat_id" | "open_id"] as string | undefined;
    if (prefix !== undefined && !body.receive_id.startsWith(prefix)) {
      return refusal({ status: 400, code: 230001, msg: `invalid request param: receive_id is not a valid ${idType}` });
    }
    return this.record(body, body.receive_id, undefined, false);
  }

  private reply(messageId: string, body: unknown): Answer {
    const chatId = this.chatOfMessage.get(messageId);
    if (chatId === undefined) {
      return refusal({ status: 400, code: 230011, msg: "The message is not found, maybe not exist or deleted." });
    }
    if (!isRecord(body)) return refusal({ status: 400, code: 230001, msg: "invalid request param: body" });
    return this.record(body, chatId, messageId, body.reply_in_thread === true);
  }

  private record(body: Record<string, unknown>, chatId: string, replyTo: string | undefined, inThread: boolean): Answer {
    const uuid = typeof body.uuid === "string" ? body.uuid : undefined;
    const earlier = uuid === undefined ? undefined : this.byUuid.get(uuid);
    if (earlier) {
      this.repeatedUuids.push(uuid!);
      return json(200, { code: 0, msg: "success", data: messageData(earlier) });
    }
    const messageId = `om_bot_${++this.counter}`;
    const cardId = cardEntityOf(body);
    let content: Record<string, unknown>;
    if (cardId !== undefined) {
      const card = this.cardkit.attach(cardId, messageId);
      if ("status" in card) return card;
      content = card;
    } else {
      const problem = checkContent(body.msg_type, body.content, { images: new Set(this.images.keys()), files: fileTypes(this.files) });
      if (problem) return refusal(problem);
      content = JSON.parse(body.content as string) as Record<string, unknown>;
    }
    const sent: BotSent = {
      messageId,
      chatId,
      msgType: String(body.msg_type),
      content,
      ...(cardId !== undefined ? { cardId: String(cardId) } : {}),
      ...(replyTo !== undefined ? { replyTo } : {}),
      replyInThread: inThread,
      ...(uuid !== undefined ? { uuid } : {}),
    };
    this.sent.push(sent);
    this.chatOfMessage.set(sent.messageId, chatId);
    if (uuid !== undefined) this.byUuid.set(uuid, sent);
    this.changes.emit("change");
    return json(200, { code: 0, msg: "success", data: messageData(sent) });
  }

  private async uploadImage(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const form = await parseForm(req, body);
    const image = form?.get("image");
    if (!form || form.get("image_type") !== "message" || !(image instanceof File)) {
      return refusal({ status: 400, code: 234001, msg: "Invalid request param." });
    }
    if (image.size === 0 || image.size > 10 * 1024 * 1024) return refusal(TOO_LARGE);
    const key = `img_v3_fake_${++this.counter}`;
    this.images.set(key, { key, name: image.name, bytes: Buffer.from(await image.arrayBuffer()) });
    this.changes.emit("change");
    return json(200, { code: 0, msg: "success", data: { image_key: key } });
  }

  private async uploadFile(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const form = await parseForm(req, body);
    const file = form?.get("file");
    const fileType = form?.get("file_type");
    const name = form?.get("file_name");
    const typed = typeof fileType === "string" && FILE_TYPES.has(fileType);
    if (!(file instanceof File) || !typed || typeof name !== "string" || name === "") {
      return refusal({ status: 400, code: 234001, msg: "Invalid request param." });
    }
    if (file.size === 0 || file.size > 30 * 1024 * 1024) return refusal(TOO_LARGE);
    const key = `file_v3_fake_${++this.counter}`;
    const duration = form?.get("duration");
    this.files.set(key, {
      key,
      name,
      bytes: Buffer.from(await file.arrayBuffer()),
      fileType,
      ...(typeof duration === "string" ? { duration: Number(duration) } : {}),
    });
    this.changes.emit("change");
    return json(200, { code: 0, msg: "success", data: { file_key: key } });
  }

  private resource(messageId: string, fileKey: string, url: URL): Answer {
    const type = url.searchParams.get("type") ?? "";
    this.resourceRequests.push({ messageId, fileKey, type });
    const found = this.resources.get(`${messageId}/${fileKey}`);
    if (!found) return refusal({ status: 400, code: 234003, msg: "File not in msg." });
    if (found.type !== type) return refusal({ status: 400, code: 234001, msg: "Invalid request param." });
    return { status: 200, bytes: found.bytes, mime: found.mime };
  }

  private takeFault(method: string, path: string): Fault | undefined {
    const fault = this.faults.find((f) => f.remaining > 0 && f.match.test(path) && (f.method === undefined || f.method === method));
    if (fault) fault.remaining -= 1;
    return fault;
  }
}

/** The card_id of an interactive message that shows a CardKit card entity (`{"type":"card","data":{"card_id"}}`). */
function cardEntityOf(body: Record<string, unknown>): unknown {
  if (body.msg_type !== "interactive" || typeof body.content !== "string") return undefined;
  try {
    const content = JSON.parse(body.content) as unknown;
    return isRecord(content) && content.type === "card" && isRecord(content.data) ? (content.data.card_id ?? null) : undefined;
  } catch {
    return undefined;
  }
}

function messageData(sent: BotSent): object {
  return {
    message_id: sent.messageId,
    chat_id: sent.chatId,
    msg_type: sent.msgType,
    create_time: String(Date.now()),
    ...(sent.replyTo ? { parent_id: sent.replyTo, root_id: sent.replyTo } : {}),
    sender: { id: "cli_fake", id_type: "app_id", sender_type: "app" },
    body: { content: JSON.stringify(sent.content) },
  };
}

function fileTypes(files: Map<string, Upload>): Map<string, string> {
  return new Map([...files.values()].map((f) => [f.key, f.fileType ?? "stream"]));
}

function faultAnswer(answer: FaultAnswer): Answer {
  const body = answer.code === undefined ? { msg: answer.msg ?? "fault" } : { code: answer.code, msg: answer.msg ?? "fault" };
  return { status: answer.status, json: body, ...(answer.headers ? { headers: answer.headers } : {}) };
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer.status === 0) {
    res.socket?.destroy();
    return;
  }
  if ("bytes" in answer) {
    res.writeHead(answer.status, { "content-type": answer.mime, "content-length": String(answer.bytes.length) });
    res.end(answer.bytes);
    return;
  }
  res.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers });
  res.end(JSON.stringify(answer.json));
}



async function parseForm(req: IncomingMessage, body: Buffer): Promise<FormData | null> {
  try {
    return await new Response(body, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
  } catch {
    return null;
  }
}
