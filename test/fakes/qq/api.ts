/**
 * The QQ bot OpenAPI as documented, for tests: getAppAccessToken (`expires_in` as a string), `Authorization: QQBot
 * <token>` on every call, GET /gateway, passive messages to users, groups, channels and DMs (a known msg_id
 * within its window: 60 minutes private, 5 in groups; at most 5 replies per msg_id; a repeated msg_id + msg_seq
 * refused as a duplicate, 40054005; Markdown only with the permission), and rich media uploads (file_type 1-3).
 * The error codes other than 40054005 are the fake's own: the platform's documentation names few of them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface Sent {
  chat: string;
  msg_type: number;
  content: string;
  markdown?: string;
  msg_id: string;
  msg_seq?: number;
  file_info?: string;
  /** The action data of the keyboard's buttons, row by row. */
  keyboard?: string[][];
}

interface Received {
  chat: string;
  at: number;
  replies: number;
  seqs: Set<number>;
}

const WINDOW_MS = { c2c: 60 * 60_000, group: 5 * 60_000, channel: 5 * 60_000, dm: 60 * 60_000 } as const;

export class FakeQqApi {
  readonly sent: Sent[] = [];
  readonly uploads = new Map<string, { chat: string; fileType: number; bytes: Buffer }>();
  readonly media = new Map<string, Buffer>();
  /** Interaction ids acknowledged with PUT /interactions/{id}, and the code each was given. */
  readonly interactionAcks: Array<{ id: string; code: unknown }> = [];
  /** Whether the bot has the Markdown permission. */
  markdownAllowed = false;
  tokensIssued = 0;
  private readonly tokens = new Map<string, number>();
  private readonly received = new Map<string, Received>();
  private readonly faults: Array<{ path: RegExp; times: number; status: number }> = [];
  private seq = 0;

  constructor(
    readonly appId: string,
    readonly appSecret: string,
    private readonly wsUrl: () => string,
  ) {}

  /** A message the platform delivered in `chat` (`c2c:openid`, `group:openid`, ...): replies may answer it. */
  delivered(msgId: string, chat: string): void {
    this.received.set(msgId, { chat, at: Date.now(), replies: 0, seqs: new Set() });
  }

  /** Makes a delivered message `minutes` older. */
  age(msgId: string, minutes: number): void {
    const message = this.received.get(msgId);
    if (message) message.at -= minutes * 60_000;
  }

  tokenValid(token: string): boolean {
    const expiresAt = this.tokens.get(token);
    return expiresAt !== undefined && Date.now() < expiresAt;
  }

  expireTokens(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, 0);
  }

  fail(path: RegExp, times: number, status: number): void {
    this.faults.push({ path, times, status });
  }

  async handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const fault = this.faults.find((f) => f.times > 0 && f.path.test(path));
    if (fault) {
      fault.times -= 1;
      return json(res, fault.status, { code: fault.status, message: "injected fault" });
    }
    if (path === "/app/getAppAccessToken") return this.token(res, parse(raw));
    if (path.startsWith("/media/")) {
      const bytes = this.media.get(path.slice("/media/".length));
      if (!bytes) return json(res, 404, { code: 404, message: "not found" });
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return void res.end(bytes);
    }
    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("QQBot ") || !this.tokenValid(auth.slice("QQBot ".length))) return json(res, 401, { code: 11244, message: "token not exist or expire" });
    if (req.method === "GET" && path === "/gateway") return json(res, 200, { url: this.wsUrl() });
    const body = parse(raw);
    if (!body) return json(res, 400, { code: 40034001, message: "invalid json" });
    let match: RegExpExecArray | null;
    if (req.method === "PUT" && (match = /^\/interactions\/([^/]+)$/.exec(path))) {
      this.interactionAcks.push({ id: match[1]!, code: body.code });
      return json(res, 200, {});
    }
    if ((match = /^\/v2\/(users|groups)\/([^/]+)\/messages$/.exec(path))) return this.message(res, `${match[1] === "users" ? "c2c" : "group"}:${match[2]}`, body, true);
    if ((match = /^\/v2\/(users|groups)\/([^/]+)\/files$/.exec(path))) return this.upload(res, `${match[1] === "users" ? "c2c" : "group"}:${match[2]}`, body);
    if ((match = /^\/channels\/([^/]+)\/messages$/.exec(path))) return this.message(res, `channel:${match[1]}`, body, false);
    if ((match = /^\/dms\/([^/]+)\/messages$/.exec(path))) return this.message(res, `dm:${match[1]}`, body, false);
    return json(res, 404, { code: 404, message: `no API ${req.method} ${path}` });
  }

  private token(res: ServerResponse, body: Record<string, unknown> | null): void {
    if (body?.appId !== this.appId || body.clientSecret !== this.appSecret) return json(res, 200, { code: 100016, message: "invalid appid or secret" });
    this.tokensIssued += 1;
    const token = `fake-qq-token-${this.tokensIssued}`;
    this.tokens.set(token, Date.now() + 7_200_000);
    json(res, 200, { access_token: token, expires_in: "7200" });
  }

  private message(res: ServerResponse, chat: string, body: Record<string, unknown>, v2: boolean): void {
    const msgId = body.msg_id;
    const received = typeof msgId === "string" ? this.received.get(msgId) : undefined;
    if (!received || received.chat !== chat) return json(res, 400, { code: 40034024, message: "msg_id is not a message of this chat; active messages are not allowed" });
    const kind = chat.slice(0, chat.indexOf(":")) as keyof typeof WINDOW_MS;
    if (Date.now() - received.at > WINDOW_MS[kind]) return json(res, 400, { code: 40034025, message: "the reply window of msg_id has passed" });
    const msgType = v2 ? Number(body.msg_type ?? 0) : 0;
    const seq = v2 ? Number(body.msg_seq ?? 1) : undefined;
    if (seq !== undefined) {
      if (!Number.isInteger(seq) || seq < 1) return json(res, 400, { code: 40034026, message: "invalid msg_seq" });
      if (received.seqs.has(seq)) return json(res, 400, { code: 40054005, message: "消息被去重，请检查请求msgseq" });
    }
    if (received.replies >= 5) return json(res, 400, { code: 40034027, message: "at most 5 replies to one message" });
    const content = typeof body.content === "string" ? body.content : "";
    let markdown: string | undefined;
    let fileInfo: string | undefined;
    if (msgType === 0 && content.trim() === "") return json(res, 400, { code: 40034028, message: "content is empty" });
    if (msgType === 2) {
      if (!this.markdownAllowed) return json(res, 403, { code: 40034029, message: "no permission to send markdown" });
      markdown = (body.markdown as { content?: unknown } | undefined)?.content as string | undefined;
      if (typeof markdown !== "string" || markdown === "") return json(res, 400, { code: 40034028, message: "markdown.content is empty" });
    }
    if (msgType === 7) {
      fileInfo = (body.media as { file_info?: unknown } | undefined)?.file_info as string | undefined;
      if (!fileInfo || !this.uploads.has(fileInfo) || this.uploads.get(fileInfo)!.chat !== chat) return json(res, 400, { code: 40034030, message: "invalid file_info" });
    }
    if (![0, 2, 7].includes(msgType)) return json(res, 400, { code: 40034031, message: "unsupported msg_type" });
    const keyboard = body.keyboard === undefined ? undefined : keyboardRows(body.keyboard);
    if (keyboard === null || (keyboard && msgType !== 2)) return json(res, 400, { code: 40034035, message: "invalid keyboard (only with markdown; at most 5 rows of 5 buttons)" });
    if ([...content].length > 5000 || [...(markdown ?? "")].length > 5000) return json(res, 400, { code: 40034032, message: "content too long" });
    if (seq !== undefined) received.seqs.add(seq);
    received.replies += 1;
    this.seq += 1;
    this.sent.push({ chat, msg_type: msgType, content, ...(markdown ? { markdown } : {}), msg_id: msgId as string, ...(seq !== undefined ? { msg_seq: seq } : {}), ...(fileInfo ? { file_info: fileInfo } : {}), ...(keyboard ? { keyboard } : {}) });
    json(res, 200, { id: `reply-${this.seq}`, timestamp: new Date().toISOString() });
  }

  private upload(res: ServerResponse, chat: string, body: Record<string, unknown>): void {
    const fileType = Number(body.file_type);
    if (![1, 2, 3].includes(fileType)) return json(res, 400, { code: 40034033, message: "file_type not supported" });
    if (body.srv_send_msg === true) return json(res, 400, { code: 40034024, message: "active messages are not allowed" });
    if (typeof body.file_data !== "string" || body.file_data === "") return json(res, 400, { code: 40034034, message: "file_data or url is required" });
    this.seq += 1;
    const fileInfo = `file-info-${this.seq}`;
    this.uploads.set(fileInfo, { chat, fileType, bytes: Buffer.from(body.file_data, "base64") });
    json(res, 200, { file_uuid: `uuid-${this.seq}`, file_info: fileInfo, ttl: 3600 });
  }
}

interface Button {
  id?: unknown;
  render_data?: { label?: unknown };
  action?: { type?: unknown; data?: unknown; permission?: { type?: unknown } };
}

/** The buttons' action data row by row; null when the keyboard breaks the documented rules. */
function keyboardRows(keyboard: unknown): string[][] | null {
  const rows = (keyboard as { content?: { rows?: unknown } } | null)?.content?.rows;
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > 5) return null;
  const out: string[][] = [];
  for (const row of rows as Array<{ buttons?: unknown }>) {
    if (!Array.isArray(row.buttons) || row.buttons.length === 0 || row.buttons.length > 5) return null;
    const data: string[] = [];
    for (const b of row.buttons as Button[]) {
      const { id, render_data: render, action } = b;
      const ok = typeof id === "string" && typeof render?.label === "string" && render.label !== "" && [0, 1, 2].includes(Number(action?.type)) && typeof action?.data === "string" && typeof action.permission?.type === "number";
      if (!ok) return null;
      data.push(String(action.data));
    }
    out.push(data);
  }
  return out;
}

function parse(raw: Buffer): Record<string, unknown> | null {
  try {
    const value = JSON.parse(raw.toString("utf8")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
