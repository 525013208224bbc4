/**
 * A fake WhatsApp Cloud API (Graph API) on 127.0.0.1, built from Meta's documentation: POST /{phone-number-id}/messages
 * (text, interactive buttons and lists, media by id, reactions, templates, read receipts with the typing
 * indicator), POST /{phone-number-id}/media (multipart upload), GET /{media-id} and the media URL it answers, and
 * GET /{phone-number-id} for the number's details. It refuses what Meta refuses, with Meta's error JSON: a wrong
 * token (190, HTTP 401), a missing parameter or a text over 4,096 characters (100), more than 3 buttons or a title
 * over 20 characters (131009), an unknown template (132001). Outside a person's 24-hour window a free-form message
 * is accepted and then fails in a status notification with 131047, as the Cloud API does. It also plays Meta's
 * side of the webhook: signed notifications, posted to the gateway.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { messageNotification, metaJson, nextWamid, sign, statusNotification, type Person } from "./notifications.js";
import { at, parseJson, readBody } from "../http-body.js";

export const API_VERSION = "v21.0";
const WINDOW_MS = 24 * 3_600_000;

export interface SentMessage {
  id: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
  /** The text a person reads: text body, interactive body, caption or template variable. */
  text: string;
  replyTo?: string;
}

export interface GraphErrorBody {
  status: number;
  code: number;
  message: string;
  details?: string;
}

interface Upload {
  data: Buffer;
  mime: string;
  name: string;
}

export interface FakeWhatsApp {
  /** WHATSAPP_API_URL for the bot. */
  apiUrl: string;
  accessToken: string;
  phoneNumberId: string;
  appSecret: string;
  verifyToken: string;
  approvedTemplates: Set<string>;
  sent: SentMessage[];
  /** Read receipts: message id and whether "typing…" was asked for. */
  reads: Array<{ messageId: string; typing: boolean }>;
  uploads: Map<string, Upload>;
  /** Status notifications waiting to be posted (failures outside the window). */
  pendingStatuses: Array<Record<string, unknown>>;
  /** Every request to the Graph API: method and path. */
  calls: Array<{ method: string; path: string }>;
  /** The fake's clock (ms); tests move it to leave the 24-hour window. */
  now: number;
  /** A person writes to the business: the notification Meta would post. Opens their 24-hour window. */
  inbound(from: Person, content: Record<string, unknown>, opts?: { id?: string; context?: { id: string } }): Record<string, unknown>;
  /** A file a person sent: its media id. */
  addMedia(data: Buffer, mime: string): string;
  /** Posts a notification to the webhook the way Meta does; `signature` "none"/"wrong" plays an impostor. */
  deliver(url: string, notification: unknown, opts?: { signature?: "none" | "wrong" }): Promise<{ status: number; body: string }>;
  /** Posts and forgets the waiting status notifications. */
  deliverStatuses(url: string): Promise<void>;
  /** The next `times` calls whose path matches, after `skip` that go through, answer with this error. */
  failNext(path: RegExp, error: GraphErrorBody, opts?: { times?: number; skip?: number }): void;
  close(): Promise<void>;
}

export async function startFakeWhatsApp(): Promise<FakeWhatsApp> {
  const faults: Array<{ path: RegExp; error: GraphErrorBody; left: number; skip: number }> = [];
  const inboundIds = new Set<string>();
  const lastInbound = new Map<string, number>();
  let mediaCounter = 0;

  const fake: FakeWhatsApp = {
    apiUrl: "",
    accessToken: `EAAG${randomBytes(12).toString("hex")}`,
    phoneNumberId: "106540352242922",
    appSecret: randomBytes(16).toString("hex"),
    verifyToken: "verify-me-please",
    approvedTemplates: new Set(),
    sent: [],
    reads: [],
    uploads: new Map(),
    pendingStatuses: [],
    calls: [],
    now: Date.now(),
    inbound(from, content, opts = {}) {
      const body = messageNotification(from, content, { phoneNumberId: fake.phoneNumberId, timestamp: Math.floor(fake.now / 1000), ...opts });
      const message = ((body.entry as Array<{ changes: Array<{ value: { messages: Array<{ id: string }> } }> }>)[0]!.changes[0]!.value.messages[0]!);
      inboundIds.add(message.id);
      lastInbound.set(from.waId, fake.now);
      return body;
    },
    addMedia(data, mime) {
      const id = String(900_000_000 + mediaCounter++);
      fake.uploads.set(id, { data, mime, name: `media-${id}` });
      return id;
    },
    async deliver(url, notification, opts = {}) {
      const raw = metaJson(notification);
      const signature = opts.signature === "wrong" ? sign(raw, "not-the-app-secret") : sign(raw, fake.appSecret);
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(opts.signature === "none" ? {} : { "x-hub-signature-256": signature }) },
        body: raw,
      });
      return { status: response.status, body: await response.text() };
    },
    async deliverStatuses(url) {
      for (const status of fake.pendingStatuses.splice(0)) {
        const { status: code } = await fake.deliver(url, statusNotification(fake.phoneNumberId, status));
        if (code !== 200) throw new Error(`the webhook answered a status notification with ${code}`);
      }
    },
    failNext(path, error, { times = 1, skip = 0 } = {}) {
      faults.push({ path, error, left: times, skip });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    fake.calls.push({ method: req.method ?? "", path });
    if (req.headers.authorization !== `Bearer ${fake.accessToken}`) {
      return graphError(res, { status: 401, code: 190, message: "Invalid OAuth access token - Cannot parse access token" });
    }
    const fault = faults.find((f) => f.left > 0 && f.path.test(path));
    if (fault && fault.skip > 0) fault.skip -= 1;
    else if (fault) {
      fault.left -= 1;
      return graphError(res, fault.error);
    }
    const body = await readBody(req);
    const bytes = /^\/media-bytes\/(\d+)$/.exec(path);
    if (bytes) {
      const upload = fake.uploads.get(bytes[1]!);
      if (!upload) return graphError(res, { status: 404, code: 100, message: "Unsupported get request." });
      res.writeHead(200, { "content-type": upload.mime, "content-length": upload.data.length });
      return void res.end(upload.data);
    }
    const [version, node, edge, ...rest] = path.split("/").filter(Boolean);
    if (version !== API_VERSION || node === undefined || rest.length > 0) return graphError(res, { status: 400, code: 2500, message: "Unknown path components" });
    if (req.method === "GET" && edge === undefined && node === fake.phoneNumberId) {
      return json(res, 200, { display_phone_number: "+1 555-078-3881", verified_name: "Switchboard Test", quality_rating: "GREEN", code_verification_status: "VERIFIED", id: node });
    }
    if (req.method === "GET" && edge === undefined && fake.uploads.has(node)) {
      const upload = fake.uploads.get(node)!;
      return json(res, 200, { url: `${fake.apiUrl.replace(`/${API_VERSION}`, "")}/media-bytes/${node}`, mime_type: upload.mime, sha256: "x", file_size: upload.data.length, id: node, messaging_product: "whatsapp" });
    }
    if (req.method === "POST" && node === fake.phoneNumberId && edge === "media") return upload(req, body, res);
    if (req.method === "POST" && node === fake.phoneNumberId && edge === "messages") return message(parseJson(body), res);
    return graphError(res, { status: 400, code: 100, message: `Unsupported ${req.method} request. Object with ID '${node}' does not exist` });
  };

  const upload = async (req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> => {
    const form = await new Request("http://fake/", { method: "POST", headers: { "content-type": req.headers["content-type"] ?? "" }, body }).formData().catch(() => null);
    const file = form?.get("file");
    if (!form || form.get("messaging_product") !== "whatsapp") return graphError(res, { status: 400, code: 100, message: "(#100) The parameter messaging_product is required." });
    if (!(file instanceof Blob)) return graphError(res, { status: 400, code: 100, message: "(#100) The parameter file is required." });
    const id = String(800_000_000 + mediaCounter++);
    fake.uploads.set(id, { data: Buffer.from(await file.arrayBuffer()), mime: String(form.get("type") ?? file.type), name: (file as File).name });
    return json(res, 200, { id });
  };

  const message = (body: unknown, res: ServerResponse): void => {
    const problem = messageProblem(body, fake, inboundIds);
    if (problem) return graphError(res, problem);
    const m = body as Record<string, unknown>;
    if (m.status === "read") {
      fake.reads.push({ messageId: String(m.message_id), typing: at(m, "typing_indicator", "type") === "text" });
      return json(res, 200, { success: true });
    }
    const id = nextWamid();
    const recipient = String(m.to);
    const type = String(m.type ?? "text");
    const replyTo = at(m, "context", "message_id");
    fake.sent.push({ id, to: recipient, type, body: m, text: textOf(m, type), ...(typeof replyTo === "string" ? { replyTo } : {}) });
    const opened = lastInbound.get(recipient);
    if (type !== "template" && (opened === undefined || fake.now - opened >= WINDOW_MS)) {
      fake.pendingStatuses.push({
        id,
        status: "failed",
        timestamp: String(Math.floor(fake.now / 1000)),
        recipient_id: recipient,
        errors: [{ code: 131047, title: "Re-engagement message", message: "Re-engagement message", error_data: { details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number." } }],
      });
    }
    return json(res, 200, { messaging_product: "whatsapp", contacts: [{ input: recipient, wa_id: recipient }], messages: [{ id }] });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => graphError(res, { status: 500, code: 1, message: `fake failure: ${(err as Error).message}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${API_VERSION}`;
  return fake;
}

const TEXT_LIMIT = 4096;
const BODY_LIMIT = 1024;

/** What Meta would refuse in a /messages body, with its error; undefined when it is fine. */
function messageProblem(body: unknown, fake: FakeWhatsApp, inboundIds: Set<string>): GraphErrorBody | undefined {
  const invalid = (message: string, code = 100): GraphErrorBody => ({ status: 400, code, message });
  if (body === null || typeof body !== "object") return invalid("(#100) Invalid parameter");
  const m = body as Record<string, unknown>;
  if (m.messaging_product !== "whatsapp") return invalid("(#100) The parameter messaging_product is required.");
  if (m.status === "read") return inboundIds.has(String(m.message_id)) ? undefined : invalid("(#100) Invalid parameter");
  if (typeof m.to !== "string" || m.to === "") return invalid("(#100) The parameter to is required.");
  const type = String(m.type ?? "text");
  if (m[type] === undefined) return invalid(`(#100) The parameter ${type} is required.`);
  const field = (...keys: string[]): unknown => at(m, type, ...keys);
  switch (type) {
    case "text": {
      const text = field("body");
      if (typeof text !== "string" || text === "") return invalid("(#100) The parameter text['body'] is required.");
      if (text.length > TEXT_LIMIT) return invalid(`(#100) Param text['body'] must be at most ${TEXT_LIMIT} characters long.`);
      return undefined;
    }
    case "interactive":
      return interactiveProblem(m[type]);
    case "image":
    case "audio":
    case "video":
    case "document":
    case "sticker": {
      if (!fake.uploads.has(String(field("id"))) && typeof field("link") !== "string") return invalid("(#131053) Media upload error", 131053);
      const caption = field("caption");
      if (type === "audio" && caption !== undefined) return invalid("(#100) Param audio['caption'] is not a valid parameter.");
      const voice = field("voice");
      if (voice !== undefined && (type !== "audio" || typeof voice !== "boolean")) return invalid(`(#100) Param ${type}['voice'] is not a valid parameter.`);
      if (typeof caption === "string" && caption.length > BODY_LIMIT) return invalid("(#100) Param caption must be at most 1024 characters long.");
      return undefined;
    }
    case "reaction":
      return typeof field("message_id") === "string" && typeof field("emoji") === "string" ? undefined : invalid("(#100) Invalid parameter");
    case "template": {
      if (!fake.approvedTemplates.has(String(field("name")))) return { status: 404, code: 132001, message: "(#132001) Template name does not exist in the translation" };
      const parameters = list(field("components")).flatMap((c) => list(at(c, "parameters")));
      const bad = parameters.some((p) => /[\n\t]| {5,}/.test(String(at(p, "text"))));
      return bad ? invalid("(#132018) There was an issue with the parameters in your template.", 132018) : undefined;
    }
    default:
      return invalid(`(#100) Param type must be one of {AUDIO, CONTACTS, DOCUMENT, IMAGE, INTERACTIVE, LOCATION, REACTION, STICKER, TEMPLATE, TEXT, VIDEO} - got "${type}".`);
  }
}

function interactiveProblem(i: unknown): GraphErrorBody | undefined {
  const notValid: GraphErrorBody = { status: 400, code: 131009, message: "(#131009) Parameter value is not valid" };
  const body = at(i, "body", "text");
  if (typeof body !== "string" || body === "" || body.length > BODY_LIMIT) return notValid;
  const within = (value: unknown, max: number): boolean => typeof value === "string" && value !== "" && [...value].length <= max;
  if (at(i, "type") === "button") {
    const buttons = list(at(i, "action", "buttons"));
    const ids = buttons.map((b) => at(b, "reply", "id"));
    const fine = buttons.length >= 1 && buttons.length <= 3 && new Set(ids).size === ids.length && buttons.every((b) => at(b, "type") === "reply" && within(at(b, "reply", "title"), 20));
    return fine ? undefined : notValid;
  }
  if (at(i, "type") === "list") {
    const rows = list(at(i, "action", "sections")).flatMap((section) => list(at(section, "rows")));
    const fine = within(at(i, "action", "button"), 20) && rows.length >= 1 && rows.length <= 10 && rows.every((r) => typeof at(r, "id") === "string" && within(at(r, "title"), 24));
    return fine ? undefined : notValid;
  }
  return notValid;
}

function textOf(m: Record<string, unknown>, type: string): string {
  const text =
    type === "text" ? at(m, "text", "body") : type === "interactive" ? at(m, "interactive", "body", "text") : type === "template" ? at(list(at(m, "template", "components"))[0], "parameters", "0", "text") : at(m, type, "caption");
  return typeof text === "string" ? text : "";
}


function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function graphError(res: ServerResponse, error: GraphErrorBody): void {
  json(res, error.status, {
    error: { message: error.message, type: "OAuthException", code: error.code, ...(error.details ? { error_data: { messaging_product: "whatsapp", details: error.details } } : {}), fbtrace_id: "AbCdEf123" },
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
