/**
 * DingTalk's server APIs as documented, for tests: `/v1.0/oauth2/accessToken`, the robot send APIs (a valid token
 * in `x-acs-dingtalk-access-token`, the app's robotCode, a known msgKey whose msgParam is a JSON string with its
 * fields), robot file download, oapi media upload (`?access_token=`), session webhooks (refused once expired), and
 * AI cards (createAndDeliver with a known template, streaming updates until finalized).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface Sent {
  via: "webhook" | "user" | "group";
  /** Staff id, conversation id, or the webhook's session. */
  to: string;
  kind: string;
  /** The text a person sees (text, markdown text); "" for media. */
  text: string;
  param: Record<string, unknown>;
}

export interface Card {
  outTrackId: string;
  openSpaceId: string;
  updates: Array<{ content: string; isFinalize: boolean }>;
  finalized: boolean;
}

const MSG_PARAMS: Record<string, string[]> = {
  sampleText: ["content"],
  sampleMarkdown: ["title", "text"],
  sampleImageMsg: ["photoURL"],
  sampleFile: ["mediaId", "fileName", "fileType"],
  sampleActionCard: ["title", "text", "singleTitle", "singleURL"],
  ...Object.fromEntries(
    [2, 3, 4, 5, 6].map((n) => [`sampleActionCard${n}`, ["title", "text", ...Array.from({ length: n }, (_, i) => [`actionTitle${i + 1}`, `actionURL${i + 1}`]).flat()]]),
  ),
};

export class FakeDingtalkApi {
  readonly sent: Sent[] = [];
  readonly uploads = new Map<string, { type: string; name: string; bytes: Buffer }>();
  readonly cards = new Map<string, Card>();
  readonly groups = new Set<string>();
  /** Staff ids the robot cannot reach (answered in invalidStaffIdList). */
  readonly invalidStaff = new Set<string>();
  tokensIssued = 0;
  private readonly tokens = new Map<string, { expired: boolean }>();
  private readonly sessions = new Map<string, number>();
  private readonly files = new Map<string, Buffer>();
  private readonly faults: Array<{ path: RegExp; times: number; status: number }> = [];
  private seq = 0;

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
    readonly robotCode: string,
    readonly cardTemplateId: string,
    private readonly baseUrl: () => string,
  ) {}

  /** A session webhook valid until `expiresAt`. */
  issueSession(expiresAt: number): string {
    this.seq += 1;
    const session = `session-${this.seq}`;
    this.sessions.set(session, expiresAt);
    return `${this.baseUrl()}/robot/sendBySession?session=${session}`;
  }

  /** A file a user sent, downloadable by its downloadCode. */
  addFile(downloadCode: string, bytes: Buffer): void {
    this.files.set(downloadCode, bytes);
  }

  expireTokens(): void {
    for (const token of this.tokens.values()) token.expired = true;
  }

  fail(path: RegExp, times: number, status: number): void {
    this.faults.push({ path, times, status });
  }

  async handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    const fault = this.faults.find((f) => f.times > 0 && f.path.test(path));
    if (fault) {
      fault.times -= 1;
      return json(res, fault.status, { code: "ServiceUnavailable", message: "injected fault" });
    }
    if (path === "/v1.0/oauth2/accessToken") return this.accessToken(res, parse(raw));
    if (path === "/robot/sendBySession") return this.sessionSend(url, res, parse(raw));
    if (path.startsWith("/download/")) return this.download(path.slice("/download/".length), res);
    if (path === "/media/upload") return this.upload(url, req, res, raw);
    const token = req.headers["x-acs-dingtalk-access-token"];
    const known = typeof token === "string" ? this.tokens.get(token) : undefined;
    if (!known || known.expired) return json(res, 401, { code: "InvalidAuthentication", message: "不合法的access_token" });
    const body = parse(raw);
    if (!body) return json(res, 400, { code: "InvalidParameter", message: "the body is not JSON" });
    switch (`${req.method} ${path}`) {
      case "POST /v1.0/robot/oToMessages/batchSend":
        return this.robotSend(res, body, "user");
      case "POST /v1.0/robot/groupMessages/send":
        return this.robotSend(res, body, "group");
      case "POST /v1.0/robot/messageFiles/download":
        if (typeof body.downloadCode !== "string" || !this.files.has(body.downloadCode)) return json(res, 400, { code: "invalidParameter.downloadCode", message: "downloadCode is invalid" });
        return json(res, 200, { downloadUrl: `${this.baseUrl()}/download/${body.downloadCode}` });
      case "POST /v1.0/card/instances/createAndDeliver":
        return this.createCard(res, body);
      case "PUT /v1.0/card/streaming":
        return this.streamCard(res, body);
      default:
        return json(res, 404, { code: "NotFound", message: `no API ${req.method} ${path}` });
    }
  }

  private accessToken(res: ServerResponse, body: Record<string, unknown> | null): void {
    if (body?.appKey !== this.clientId || body.appSecret !== this.clientSecret) return json(res, 400, { code: "invalidClientIdOrSecret", message: "无效的clientId或clientSecret" });
    this.tokensIssued += 1;
    const accessToken = `fake-dingtalk-token-${this.tokensIssued}`;
    this.tokens.set(accessToken, { expired: false });
    json(res, 200, { accessToken, expireIn: 7200 });
  }

  private robotSend(res: ServerResponse, body: Record<string, unknown>, via: "user" | "group"): void {
    if (body.robotCode !== this.robotCode) return json(res, 400, { code: "invalidParameter.robotCode", message: "robot 不存在" });
    const msgKey = String(body.msgKey);
    const fields = MSG_PARAMS[msgKey];
    if (!fields) return json(res, 400, { code: "invalidParameter.msgKey", message: `unknown msgKey ${msgKey}` });
    if (typeof body.msgParam !== "string") return json(res, 400, { code: "invalidParameter.msgParam", message: "msgParam must be a JSON string" });
    const param = parse(Buffer.from(body.msgParam));
    if (!param || fields.some((f) => typeof param[f] !== "string" || param[f] === "")) return json(res, 400, { code: "invalidParameter.msgParam", message: `msgParam needs ${fields.join(", ")}` });
    if ((msgKey === "sampleFile" && !this.uploads.has(String(param.mediaId))) || (msgKey === "sampleImageMsg" && !this.uploads.has(String(param.photoURL)))) {
      return json(res, 400, { code: "invalidParameter.mediaId", message: "mediaId is invalid" });
    }
    let to: string;
    if (via === "group") {
      if (typeof body.openConversationId !== "string" || !this.groups.has(body.openConversationId)) return json(res, 400, { code: "resource.not.found", message: "group not found" });
      to = body.openConversationId;
    } else {
      const ids = body.userIds;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 20) return json(res, 400, { code: "invalidParameter.userIds", message: "userIds needs 1 to 20 staff ids" });
      const invalid = ids.filter((id) => this.invalidStaff.has(String(id)));
      if (invalid.length > 0) return json(res, 200, { processQueryKey: "", invalidStaffIdList: invalid, flowControlledStaffIdList: [] });
      to = String(ids[0]);
    }
    this.seq += 1;
    this.sent.push({ via, to, kind: msgKey, text: String(param.text ?? param.content ?? ""), param });
    json(res, 200, { processQueryKey: `pqk-${this.seq}`, invalidStaffIdList: [], flowControlledStaffIdList: [] });
  }

  private sessionSend(url: URL, res: ServerResponse, body: Record<string, unknown> | null): void {
    const session = url.searchParams.get("session") ?? "";
    const expiresAt = this.sessions.get(session);
    if (expiresAt === undefined) return json(res, 200, { errcode: 400013, errmsg: "session not found" });
    if (Date.now() > expiresAt) return json(res, 200, { errcode: 300001, errmsg: "session expired" });
    const msgtype = String(body?.msgtype);
    const content = body?.[msgtype] as Record<string, unknown> | undefined;
    const text = msgtype === "text" ? content?.content : msgtype === "markdown" ? content?.text : undefined;
    if (typeof text !== "string" || text === "" || (msgtype === "markdown" && typeof content?.title !== "string")) {
      return json(res, 200, { errcode: 300005, errmsg: "invalid message" });
    }
    this.sent.push({ via: "webhook", to: session, kind: msgtype, text, param: content ?? {} });
    json(res, 200, { errcode: 0, errmsg: "ok" });
  }

  private async upload(url: URL, req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const token = this.tokens.get(url.searchParams.get("access_token") ?? "");
    if (!token || token.expired) return json(res, 200, { errcode: 40014, errmsg: "不合法的access_token" });
    const type = url.searchParams.get("type") ?? "";
    if (!["image", "voice", "video", "file"].includes(type)) return json(res, 200, { errcode: 40004, errmsg: "不合法的媒体文件类型" });
    const form = await new Request("http://fake", { method: "POST", headers: { "content-type": req.headers["content-type"] ?? "" }, body: raw }).formData().catch(() => null);
    const media = form?.get("media");
    if (!(media instanceof File)) return json(res, 200, { errcode: 41005, errmsg: "缺少多媒体文件数据" });
    this.seq += 1;
    const mediaId = `@media-${this.seq}`;
    this.uploads.set(mediaId, { type, name: media.name, bytes: Buffer.from(await media.arrayBuffer()) });
    json(res, 200, { errcode: 0, errmsg: "ok", type, media_id: mediaId, created_at: Date.now() });
  }

  private download(code: string, res: ServerResponse): void {
    const bytes = this.files.get(code);
    if (!bytes) return json(res, 404, { code: "NotFound" });
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(bytes);
  }

  private createCard(res: ServerResponse, body: Record<string, unknown>): void {
    if (body.cardTemplateId !== this.cardTemplateId) return json(res, 400, { code: "invalidParameter.cardTemplateId", message: "card template not found" });
    const outTrackId = String(body.outTrackId ?? "");
    if (outTrackId === "" || this.cards.has(outTrackId)) return json(res, 400, { code: "invalidParameter.outTrackId", message: "outTrackId missing or used" });
    const openSpaceId = String(body.openSpaceId ?? "");
    const group = /^dtv1\.card\/\/IM_GROUP\.(.+)$/.exec(openSpaceId);
    const robot = /^dtv1\.card\/\/IM_ROBOT\.(.+)$/.exec(openSpaceId);
    if (group ? !body.imGroupOpenDeliverModel : robot ? !body.imRobotOpenDeliverModel : true) return json(res, 400, { code: "invalidParameter.openSpaceId", message: "openSpaceId and its deliver model do not match" });
    this.cards.set(outTrackId, { outTrackId, openSpaceId, updates: [], finalized: false });
    json(res, 200, { success: true, result: { outTrackId, deliverResults: [{ spaceId: (group ?? robot)![1], success: true }] } });
  }

  private streamCard(res: ServerResponse, body: Record<string, unknown>): void {
    const card = this.cards.get(String(body.outTrackId));
    if (!card) return json(res, 400, { code: "invalidParameter.outTrackId", message: "card not found" });
    if (card.finalized) return json(res, 400, { code: "card.finalized", message: "the card is finalized" });
    if (body.key !== "content" || typeof body.content !== "string" || typeof body.guid !== "string") return json(res, 400, { code: "invalidParameter", message: "key, content and guid are required" });
    card.updates.push({ content: body.content, isFinalize: body.isFinalize === true });
    card.finalized = body.isFinalize === true;
    json(res, 200, { success: true });
  }
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
