/**
 * WeCom's server API as its documentation describes it, for tests: /cgi-bin/gettoken (errcode 40013 for a wrong
 * corp id, 40001 for a wrong secret), every other call refused without a live token (41001 missing, 40014 invalid,
 * 42001 expired), /cgi-bin/message/send and /cgi-bin/appchat/send checking the agent, the message type and its
 * fields (text over 2,048 bytes is truncated, as WeCom does; a template card's task id, title and at most 6
 * buttons are checked), temporary media upload and download, /cgi-bin/agent/get.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface SentMessage {
  /** "user" for message/send, "appchat" for appchat/send. */
  via: "user" | "appchat";
  to: string;
  msgtype: string;
  body: Record<string, unknown>;
  /** The text as the chat shows it (text and markdown: cut at 2,048 bytes). */
  text: string;
  /** The content was longer than WeCom keeps. */
  truncated: boolean;
  msgid: string;
}

export interface Fault {
  path: RegExp;
  times: number;
  status?: number;
  errcode?: number;
}

interface Upload {
  type: string;
  name: string;
  bytes: Buffer;
}

const MAX_TEXT_BYTES = 2_048;
const UPLOAD_LIMITS: Record<string, number> = { image: 10 << 20, voice: 2 << 20, video: 10 << 20, file: 20 << 20 };
const CARD_TYPES = new Set(["text_notice", "news_notice", "button_interaction", "vote_interaction", "multiple_interaction"]);

export class FakeWecomApi {
  readonly sent: SentMessage[] = [];
  readonly uploads = new Map<string, Upload>();
  readonly cardUpdates: Array<Record<string, unknown>> = [];
  readonly appChats = new Set<string>();
  /** Every call's path, in order (without the query). */
  readonly calls: string[] = [];
  tokensIssued = 0;
  private readonly tokens = new Map<string, { expired: boolean }>();
  private readonly media = new Map<string, { bytes: Buffer; type: string }>();
  private readonly taskIds = new Set<string>();
  private readonly faults: Fault[] = [];
  private seq = 0;

  constructor(readonly corpId: string, readonly corpSecret: string, readonly agentId: number) {}

  /** Media a user sent, downloadable by its MediaId. */
  addMedia(mediaId: string, bytes: Buffer, type: string): void {
    this.media.set(mediaId, { bytes, type });
  }

  /** Every token issued so far answers 42001 from now on. */
  expireTokens(): void {
    for (const token of this.tokens.values()) token.expired = true;
  }

  /** The next `times` calls to a matching path fail with an HTTP status or an errcode. */
  fail(path: RegExp, times: number, how: { status?: number; errcode?: number }): void {
    this.faults.push({ path, times, ...how });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    this.calls.push(path);
    const raw = await readBody(req);
    const fault = this.faults.find((f) => f.times > 0 && f.path.test(path));
    if (fault) {
      fault.times -= 1;
      if (fault.status) return sendJson(res, fault.status, { errcode: -1, errmsg: "system busy" });
      return sendJson(res, 200, { errcode: fault.errcode ?? -1, errmsg: "injected fault" });
    }
    if (path === "/cgi-bin/gettoken") return sendJson(res, 200, this.getToken(url));
    const token = url.searchParams.get("access_token");
    if (!token) return sendJson(res, 200, { errcode: 41001, errmsg: "access_token missing" });
    const known = this.tokens.get(token);
    if (!known) return sendJson(res, 200, { errcode: 40014, errmsg: "invalid access_token" });
    if (known.expired) return sendJson(res, 200, { errcode: 42001, errmsg: "access_token expired" });
    switch (path) {
      case "/cgi-bin/message/send":
        return sendJson(res, 200, this.send("user", parseJson(raw)));
      case "/cgi-bin/appchat/send":
        return sendJson(res, 200, this.send("appchat", parseJson(raw)));
      case "/cgi-bin/message/update_template_card":
        this.cardUpdates.push(parseJson(raw) ?? {});
        return sendJson(res, 200, { errcode: 0, errmsg: "ok" });
      case "/cgi-bin/media/upload":
        return sendJson(res, 200, await this.upload(url, req, raw));
      case "/cgi-bin/media/get":
        return this.download(url, res);
      case "/cgi-bin/agent/get":
        if (Number(url.searchParams.get("agentid")) !== this.agentId) return sendJson(res, 200, { errcode: 40056, errmsg: "invalid agentid" });
        return sendJson(res, 200, { errcode: 0, errmsg: "ok", agentid: this.agentId, name: "Switchboard" });
      default:
        return sendJson(res, 404, { errcode: 404, errmsg: `no such API ${path}` });
    }
  }

  private getToken(url: URL): object {
    if (url.searchParams.get("corpid") !== this.corpId) return { errcode: 40013, errmsg: "invalid corpid" };
    if (url.searchParams.get("corpsecret") !== this.corpSecret) return { errcode: 40001, errmsg: "invalid credential" };
    this.tokensIssued += 1;
    const token = `fake-wecom-token-${this.tokensIssued}`;
    this.tokens.set(token, { expired: false });
    return { errcode: 0, errmsg: "ok", access_token: token, expires_in: 7200 };
  }

  private send(via: "user" | "appchat", body: Record<string, unknown> | null): object {
    if (!body) return { errcode: 47001, errmsg: "data format error" };
    let to: string;
    if (via === "user") {
      if (body.agentid !== this.agentId) return { errcode: 40056, errmsg: "invalid agentid" };
      if (typeof body.touser !== "string" || body.touser === "") return { errcode: 40031, errmsg: "invalid user list" };
      to = body.touser;
    } else {
      if (typeof body.chatid !== "string" || !this.appChats.has(body.chatid)) return { errcode: 86003, errmsg: "chat not found" };
      to = body.chatid;
    }
    const msgtype = String(body.msgtype);
    const content = body[msgtype] as Record<string, unknown> | undefined;
    if (!content || typeof content !== "object") return { errcode: 40008, errmsg: `invalid message type ${msgtype}` };
    let text = "";
    let truncated = false;
    switch (msgtype) {
      case "text":
      case "markdown": {
        if (typeof content.content !== "string" || content.content === "") return { errcode: 44004, errmsg: "empty content" };
        const bytes = Buffer.from(content.content, "utf8");
        truncated = bytes.length > MAX_TEXT_BYTES;
        text = truncated ? bytes.subarray(0, MAX_TEXT_BYTES).toString("utf8") : content.content;
        break;
      }
      case "image":
      case "voice":
      case "video":
      case "file": {
        const upload = typeof content.media_id === "string" ? this.uploads.get(content.media_id) : undefined;
        if (!upload) return { errcode: 40007, errmsg: "invalid media_id" };
        break;
      }
      case "template_card": {
        if (via === "appchat") return { errcode: 40008, errmsg: "template_card is not supported in app group chats" };
        const problem = this.checkCard(content);
        if (problem) return { errcode: 40058, errmsg: problem };
        text = String(content.sub_title_text ?? "");
        break;
      }
      default:
        return { errcode: 40008, errmsg: `invalid message type ${msgtype}` };
    }
    this.seq += 1;
    const msgid = `msg-${this.seq}`;
    this.sent.push({ via, to, msgtype, body, text, truncated, msgid });
    return via === "user" ? { errcode: 0, errmsg: "ok", invaliduser: "", msgid, ...(msgtype === "template_card" ? { response_code: `rc-${this.seq}` } : {}) } : { errcode: 0, errmsg: "ok" };
  }

  private checkCard(card: Record<string, unknown>): string | undefined {
    if (!CARD_TYPES.has(String(card.card_type))) return "invalid card_type";
    const title = card.main_title as { title?: unknown; desc?: unknown } | undefined;
    if (!title || (typeof title.title !== "string" && typeof title.desc !== "string")) return "main_title needs title or desc";
    if (typeof title.title === "string" && [...title.title].length > 36) return "main_title.title is longer than 36 characters";
    if (card.card_type !== "button_interaction") return undefined;
    const taskId = card.task_id;
    if (typeof taskId !== "string" || !/^[A-Za-z0-9_\-@]{1,128}$/.test(taskId)) return "invalid task_id";
    if (this.taskIds.has(taskId)) return "task_id already used";
    const buttons = card.button_list;
    if (!Array.isArray(buttons) || buttons.length === 0 || buttons.length > 6) return "button_list needs 1 to 6 buttons";
    for (const b of buttons as Array<Record<string, unknown>>) {
      if (typeof b.text !== "string" || b.text === "" || typeof b.key !== "string" || b.key === "") return "a button needs text and key";
      if (b.style !== undefined && ![1, 2, 3, 4].includes(Number(b.style))) return "invalid button style";
    }
    this.taskIds.add(taskId);
    return undefined;
  }

  private async upload(url: URL, req: IncomingMessage, raw: Buffer): Promise<object> {
    const type = url.searchParams.get("type") ?? "";
    if (!(type in UPLOAD_LIMITS)) return { errcode: 40004, errmsg: "invalid media type" };
    const contentType = req.headers["content-type"] ?? "";
    if (!contentType.startsWith("multipart/form-data")) return { errcode: 47001, errmsg: "data format error" };
    const form = await new Request("http://fake", { method: "POST", headers: { "content-type": contentType }, body: raw }).formData();
    const media = form.get("media");
    if (!(media instanceof File)) return { errcode: 41005, errmsg: "media data missing" };
    const bytes = Buffer.from(await media.arrayBuffer());
    if (bytes.length < 5) return { errcode: 40005, errmsg: "invalid file size" };
    if (bytes.length > UPLOAD_LIMITS[type]!) return { errcode: 40006, errmsg: "invalid file size" };
    this.seq += 1;
    const mediaId = `media-${this.seq}`;
    this.uploads.set(mediaId, { type, name: media.name, bytes });
    return { errcode: 0, errmsg: "", type, media_id: mediaId, created_at: String(Math.floor(Date.now() / 1000)) };
  }

  private download(url: URL, res: ServerResponse): void {
    const item = this.media.get(url.searchParams.get("media_id") ?? "");
    if (!item) return sendJson(res, 200, { errcode: 40007, errmsg: "invalid media_id" });
    res.writeHead(200, { "content-type": item.type, "content-length": item.bytes.length });
    res.end(item.bytes);
  }
}

function parseJson(raw: Buffer): Record<string, unknown> | null {
  try {
    const value = JSON.parse(raw.toString("utf8")) as unknown;
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
