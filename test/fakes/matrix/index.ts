/**
 * A fake Matrix homeserver (Client-Server API) on 127.0.0.1, built from the specification: /sync long polling with
 * `since`/`next_batch` stream tokens (the initial sync returns history and pending invitations), PUT send with
 * transaction ids deduplicated per access token (a repeat answers the first event id), redactions, typing,
 * join/leave, joined_members, single events, profiles, whoami, the content repository (upload and authenticated
 * download). It refuses what a homeserver refuses, with the spec's `{ errcode, error }`: a missing or wrong token
 * (401 M_MISSING_TOKEN / M_UNKNOWN_TOKEN), a send to a room the bot is not in (403 M_FORBIDDEN), an event over
 * 65,536 bytes (413 M_TOO_LARGE), a message without msgtype or body (400 M_BAD_JSON), and 429 M_LIMIT_EXCEEDED with
 * retry_after_ms when a test asks for it. Tests play the people: rooms, messages, invitations.
 */
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { at, parseJson, readBody } from "../http-body.js";

export const SERVER_NAME = "fake.test";
export const MAX_EVENT_BYTES = 65_536;

export interface MatrixEvent {
  type: string;
  event_id: string;
  sender: string;
  room_id: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
  state_key?: string;
}

interface Room {
  id: string;
  members: Map<string, { membership: "join" | "invite" | "leave"; displayname?: string }>;
  encrypted: boolean;
  inviter?: string;
}

export interface MatrixErrorBody {
  status: number;
  errcode: string;
  error: string;
  retry_after_ms?: number;
}

export interface FakeMatrix {
  url: string;
  accessToken: string;
  botUserId: string;
  botDisplayName: string;
  /** Every event, in stream order (position = index + 1). */
  events: MatrixEvent[];
  /** The `since` of every /sync request (undefined: an initial sync). */
  syncs: Array<string | undefined>;
  uploads: Map<string, { data: Buffer; contentType: string; filename?: string }>;
  typing: Array<{ roomId: string; userId: string }>;
  /** A room with these people (and the bot, joined unless `invitedBy`). */
  createRoom(opts: { people: Array<{ id: string; name: string }>; encrypted?: boolean; invitedBy?: string }): string;
  /** A person posts an m.room.message (or another type); answers its event id. */
  post(roomId: string, sender: string, content: Record<string, unknown>, type?: string): string;
  /** The bot's events of a type (default m.room.message), in order. */
  botEvents(type?: string): MatrixEvent[];
  membership(roomId: string, userId: string): string | undefined;
  /** The next `times` requests whose path matches answer with this error. */
  failNext(path: RegExp, error: MatrixErrorBody, times?: number): void;
  close(): Promise<void>;
}

export async function startFakeMatrix(): Promise<FakeMatrix> {
  const rooms = new Map<string, Room>();
  const invites: Array<{ pos: number; roomId: string }> = [];
  const txns = new Map<string, string>();
  const faults: Array<{ path: RegExp; error: MatrixErrorBody; left: number }> = [];
  const wake = new EventEmitter();
  wake.setMaxListeners(100);
  const waiting = new Set<() => void>();
  let counter = 0;
  const newId = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(3).toString("hex")}`;

  const append = (roomId: string, sender: string, type: string, content: Record<string, unknown>, stateKey?: string): MatrixEvent => {
    const event: MatrixEvent = { type, event_id: `$${newId("ev")}`, sender, room_id: roomId, origin_server_ts: Date.now(), content, ...(stateKey !== undefined ? { state_key: stateKey } : {}) };
    fake.events.push(event);
    wake.emit("event");
    return event;
  };

  const fake: FakeMatrix = {
    url: "",
    accessToken: `syt_${randomBytes(16).toString("hex")}`,
    botUserId: `@switchboard:${SERVER_NAME}`,
    botDisplayName: "Switchboard",
    events: [],
    syncs: [],
    uploads: new Map(),
    typing: [],
    createRoom({ people, encrypted = false, invitedBy }) {
      const id = `!${newId("room")}:${SERVER_NAME}`;
      const room: Room = { id, members: new Map(), encrypted, ...(invitedBy !== undefined ? { inviter: invitedBy } : {}) };
      for (const person of people) room.members.set(person.id, { membership: "join", displayname: person.name });
      room.members.set(fake.botUserId, { membership: invitedBy !== undefined ? "invite" : "join", displayname: fake.botDisplayName });
      rooms.set(id, room);
      if (invitedBy !== undefined) {
        invites.push({ pos: fake.events.length, roomId: id });
        append(id, invitedBy, "m.room.member", { membership: "invite", displayname: fake.botDisplayName }, fake.botUserId);
      }
      return id;
    },
    post(roomId, sender, content, type = "m.room.message") {
      return append(roomId, sender, type, content).event_id;
    },
    botEvents(type = "m.room.message") {
      return fake.events.filter((e) => e.sender === fake.botUserId && e.type === type);
    },
    membership(roomId, userId) {
      return rooms.get(roomId)?.members.get(userId)?.membership;
    },
    failNext(path, error, times = 1) {
      faults.push({ path, error, left: times });
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of waiting) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const joined = (roomId: string): Room | undefined => {
    const room = rooms.get(roomId);
    return room?.members.get(fake.botUserId)?.membership === "join" ? room : undefined;
  };

  const sync = async (query: URLSearchParams, res: ServerResponse, req: IncomingMessage): Promise<void> => {
    const since = query.get("since") ?? undefined;
    fake.syncs.push(since);
    let from = 0;
    if (since !== undefined) {
      const match = /^s(\d+)$/.exec(since);
      if (!match) return error(res, { status: 400, errcode: "M_INVALID_PARAM", error: "Invalid stream token" });
      from = Number(match[1]);
      const timeout = Number(query.get("timeout") ?? 0);
      if (fake.events.length <= from && timeout > 0) {
        await new Promise<void>((resolve) => {
          const release = (): void => {
            clearTimeout(timer);
            wake.off("event", release);
            req.off("close", release);
            waiting.delete(release);
            resolve();
          };
          const timer = setTimeout(release, timeout);
          wake.on("event", release);
          req.on("close", release);
          waiting.add(release);
        });
      }
    }
    if (res.destroyed) return;
    const join: Record<string, { timeline: { events: MatrixEvent[]; limited: boolean; prev_batch?: string }; summary: Record<string, unknown> }> = {};
    const invite: Record<string, { invite_state: { events: unknown[] } }> = {};
    // Synapse's default is 10 events per room without a filter.
    const limit = Number(at(parseJsonText(query.get("filter")), "room", "timeline", "limit") ?? 10);
    const kept = new Map<string, number[]>();
    for (const [offset, event] of fake.events.slice(from).entries()) {
      const room = joined(event.room_id);
      if (!room) continue;
      const entry = (join[room.id] ??= { timeline: { events: [], limited: false }, summary: {} });
      const indices = kept.get(room.id) ?? [];
      kept.set(room.id, indices);
      entry.timeline.events.push(event);
      indices.push(from + offset);
      if (entry.timeline.events.length > limit) {
        // Only the newest `limit` events: the timeline is limited, with a token to page back from.
        entry.timeline.events.shift();
        indices.shift();
        entry.timeline.limited = true;
      }
      entry.summary["m.joined_member_count"] = [...room.members.values()].filter((m) => m.membership === "join").length;
    }
    for (const [roomId, entry] of Object.entries(join)) if (entry.timeline.limited) entry.timeline.prev_batch = `s${kept.get(roomId)![0]}`;
    for (const { pos, roomId } of invites) {
      const room = rooms.get(roomId)!;
      if (pos < from || room.members.get(fake.botUserId)?.membership !== "invite") continue;
      const state: unknown[] = [
        { type: "m.room.create", state_key: "", sender: room.inviter, content: { creator: room.inviter, room_version: "10" } },
        { type: "m.room.member", state_key: fake.botUserId, sender: room.inviter, content: { membership: "invite", displayname: fake.botDisplayName } },
      ];
      if (room.encrypted) state.push({ type: "m.room.encryption", state_key: "", sender: room.inviter, content: { algorithm: "m.megolm.v1.aes-sha2" } });
      invite[roomId] = { invite_state: { events: state } };
    }
    json(res, 200, { next_batch: `s${fake.events.length}`, rooms: { join, invite, leave: {} } });
  };

  const send = (roomId: string, type: string, txnId: string, body: unknown, res: ServerResponse): void => {
    const key = `${fake.accessToken}:${txnId}`;
    const earlier = txns.get(key);
    if (earlier !== undefined) return json(res, 200, { event_id: earlier });
    if (!joined(roomId)) return error(res, { status: 403, errcode: "M_FORBIDDEN", error: `User ${fake.botUserId} not in room ${roomId}` });
    if (body === null || typeof body !== "object" || Array.isArray(body)) return error(res, { status: 400, errcode: "M_NOT_JSON", error: "Content not JSON." });
    const content = body as Record<string, unknown>;
    if (type === "m.room.message" && (typeof content.msgtype !== "string" || typeof content.body !== "string")) {
      return error(res, { status: 400, errcode: "M_BAD_JSON", error: "m.room.message needs a string msgtype and body" });
    }
    // The homeserver measures the whole PDU: the content plus ids, hashes, signatures and its references.
    const pdu = { type, room_id: roomId, sender: fake.botUserId, content, origin_server_ts: Date.now(), depth: 1_000, prev_events: [`$${"x".repeat(43)}`], auth_events: Array.from({ length: 3 }, () => `$${"y".repeat(43)}`), hashes: { sha256: "z".repeat(43) }, signatures: { [SERVER_NAME]: { "ed25519:a_abcd": "s".repeat(86) } } };
    if (Buffer.byteLength(JSON.stringify(pdu)) > MAX_EVENT_BYTES) return error(res, { status: 413, errcode: "M_TOO_LARGE", error: "event too large" });
    const event = append(roomId, fake.botUserId, type, content);
    txns.set(key, event.event_id);
    json(res, 200, { event_id: event.event_id });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    const method = req.method ?? "GET";
    if (path === "/_matrix/client/versions") return json(res, 200, { versions: ["v1.9", "v1.10", "v1.11"] });
    const auth = req.headers.authorization;
    if (auth === undefined) return error(res, { status: 401, errcode: "M_MISSING_TOKEN", error: "Missing access token" });
    if (auth !== `Bearer ${fake.accessToken}`) return json(res, 401, { errcode: "M_UNKNOWN_TOKEN", error: "Invalid access token passed.", soft_logout: false });
    const fault = faults.find((f) => f.left > 0 && f.path.test(path));
    if (fault) {
      fault.left -= 1;
      return error(res, fault.error);
    }
    const body = await readBody(req);
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    const [, area, version, ...rest] = parts;
    if (area === "media" && version === "v3" && rest[0] === "upload" && method === "POST") {
      const mediaId = newId("media");
      const filename = url.searchParams.get("filename") ?? undefined;
      fake.uploads.set(mediaId, { data: body, contentType: req.headers["content-type"] ?? "application/octet-stream", ...(filename !== undefined ? { filename } : {}) });
      return json(res, 200, { content_uri: `mxc://${SERVER_NAME}/${mediaId}` });
    }
    if (area === "client" && version === "v1" && rest[0] === "media" && rest[1] === "download" && method === "GET") {
      const upload = rest[2] === SERVER_NAME ? fake.uploads.get(rest[3] ?? "") : undefined;
      if (!upload) return error(res, { status: 404, errcode: "M_NOT_FOUND", error: "Not found" });
      res.writeHead(200, { "content-type": upload.contentType, "content-length": upload.data.length });
      return void res.end(upload.data);
    }
    if (area !== "client" || version !== "v3") return error(res, { status: 404, errcode: "M_UNRECOGNIZED", error: "Unrecognized request" });
    const parsed = parseJson(body);
    if (method === "GET" && rest[0] === "sync") return sync(url.searchParams, res, req);
    if (method === "GET" && rest.join("/") === "account/whoami") return json(res, 200, { user_id: fake.botUserId, device_id: "FAKEDEVICE" });
    if (method === "GET" && rest[0] === "profile" && rest[2] === "displayname") {
      return rest[1] === fake.botUserId ? json(res, 200, { displayname: fake.botDisplayName }) : error(res, { status: 404, errcode: "M_NOT_FOUND", error: "Profile was not found" });
    }
    if (method === "POST" && rest[0] === "join") {
      const room = rooms.get(rest[1] ?? "");
      const member = room?.members.get(fake.botUserId);
      if (!room || member?.membership !== "invite") return error(res, { status: 403, errcode: "M_FORBIDDEN", error: "You are not invited to this room." });
      member.membership = "join";
      append(room.id, fake.botUserId, "m.room.member", { membership: "join", displayname: fake.botDisplayName }, fake.botUserId);
      return json(res, 200, { room_id: room.id });
    }
    const roomId = rest[1] ?? "";
    const room = rooms.get(roomId);
    if (rest[0] === "rooms" && !room) return error(res, { status: 404, errcode: "M_NOT_FOUND", error: "Unknown room" });
    switch (`${method} ${rest[0]}/${rest[2] ?? ""}`) {
      case "PUT rooms/send":
        return send(roomId, rest[3]!, rest[4]!, parsed, res);
      case "PUT rooms/redact": {
        const key = `${fake.accessToken}:${rest[4]}`;
        const earlier = txns.get(key) ?? append(roomId, fake.botUserId, "m.room.redaction", { redacts: rest[3] }).event_id;
        txns.set(key, earlier);
        return json(res, 200, { event_id: earlier });
      }
      case "PUT rooms/typing":
        fake.typing.push({ roomId, userId: rest[3]! });
        return json(res, 200, {});
      case "POST rooms/leave": {
        room!.members.set(fake.botUserId, { membership: "leave" });
        append(roomId, fake.botUserId, "m.room.member", { membership: "leave" }, fake.botUserId);
        return json(res, 200, {});
      }
      case "GET rooms/joined_members": {
        if (!joined(roomId)) return error(res, { status: 403, errcode: "M_FORBIDDEN", error: "User not in room" });
        const members = [...room!.members.entries()].filter(([, m]) => m.membership === "join");
        return json(res, 200, { joined: Object.fromEntries(members.map(([id, m]) => [id, { display_name: m.displayname ?? null, avatar_url: null }])) });
      }
      case "GET rooms/messages": {
        // Backwards only, as the bot pages: events before `from` down to `to`, newest first.
        const fromPos = /^s(\d+)$/.exec(url.searchParams.get("from") ?? "");
        const toPos = /^s(\d+)$/.exec(url.searchParams.get("to") ?? "s0");
        if (url.searchParams.get("dir") !== "b" || !fromPos || !toPos) return error(res, { status: 400, errcode: "M_INVALID_PARAM", error: "Invalid from, to or dir" });
        const count = Number(url.searchParams.get("limit") ?? 10);
        const indexed = fake.events.map((e, index) => ({ e, index })).filter(({ e, index }) => e.room_id === roomId && index < Number(fromPos[1]) && index >= Number(toPos[1]));
        const page = indexed.reverse().slice(0, count);
        return json(res, 200, { chunk: page.map((p) => p.e), start: url.searchParams.get("from"), ...(page.length > 0 ? { end: `s${page.at(-1)!.index}` } : {}) });
      }
      case "GET rooms/event": {
        const event = fake.events.find((e) => e.room_id === roomId && e.event_id === rest[3]);
        return event ? json(res, 200, event) : error(res, { status: 404, errcode: "M_NOT_FOUND", error: "Event not found." });
      }
      default:
        return error(res, { status: 404, errcode: "M_UNRECOGNIZED", error: `Unrecognized request: ${method} ${path}` });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => error(res, { status: 500, errcode: "M_UNKNOWN", error: `Internal server error: ${(err as Error).message}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

export const rateLimited = (retryAfterMs: number): MatrixErrorBody => ({ status: 429, errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: retryAfterMs });
export const serverError = (): MatrixErrorBody => ({ status: 500, errcode: "M_UNKNOWN", error: "Internal server error" });

export const textMessage = (body: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ msgtype: "m.text", body, ...extra });

function error(res: ServerResponse, body: MatrixErrorBody): void {
  const { status, ...rest } = body;
  json(res, status, rest);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function parseJsonText(text: string | null): unknown {
  return text === null ? undefined : parseJson(Buffer.from(text));
}
