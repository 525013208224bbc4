/**
 * The WebChat wire format: what clients may send (validated here, at the edge) and what the server
 * sends back, plus the normalization of a client message into an InboundMessage.
 */
import { z } from "zod";
import type { WebChatError } from "../../core/api-errors.js";
import type { HandleOutcome, InboundMessage } from "../../core/types.js";

/** Chat, user and message ids chosen by clients. No ":", so `web:<chatId>:<messageId>` stays unambiguous. */
const clientId = z
  .string()
  .regex(/^[A-Za-z0-9_.@-]{1,128}$/, "must be 1 to 128 letters, digits or _ . @ -");
const userName = z.string().trim().min(1).max(100);
/** An IANA zone name as the browser reports it; the gateway checks it before using it. */
const timeZone = z.string().regex(/^[A-Za-z0-9_+\-/]{1,64}$/);
const text = z.string().refine((s) => s.trim().length > 0, "must not be empty");

export const apiMessageSchema = z.object({
  chatId: clientId,
  userId: clientId,
  text,
  userName: userName.optional(),
  messageId: clientId.optional(),
  timeZone: timeZone.optional(),
});
export type ApiMessage = z.output<typeof apiMessageSchema>;

const helloFrame = z.object({
  type: z.literal("hello"),
  chatId: clientId,
  userId: clientId,
  userName: userName.optional(),
  timeZone: timeZone.optional(),
});
const messageFrame = z.object({ type: z.literal("message"), text, messageId: clientId.optional() });
const clientFrameSchema = z.discriminatedUnion("type", [helloFrame, messageFrame]);
export type HelloFrame = z.output<typeof helloFrame>;
export type MessageFrame = z.output<typeof messageFrame>;
export type ClientFrame = z.output<typeof clientFrameSchema>;

export type FrameParse = { ok: true; frame: ClientFrame } | { ok: false; error: WebChatError; message: string };

export function parseJson(raw: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (err) {
    return { ok: false, message: `Malformed JSON: ${(err as Error).message}` };
  }
}

export function parseClientFrame(raw: string): FrameParse {
  const json = parseJson(raw);
  if (!json.ok) return { ok: false, error: { code: "bad_json" }, message: json.message };
  const value = json.value;
  const type = (value as { type?: unknown } | null)?.type;
  if (type !== "hello" && type !== "message") {
    return { ok: false, error: { code: "unknown_type" }, message: `Unknown frame type ${JSON.stringify(type) ?? "(none)"}; expected "hello" or "message"` };
  }
  const parsed = clientFrameSchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: { code: "bad_frame" }, message: describeIssues(parsed.error).join("; ") };
  return { ok: true, frame: parsed.data };
}

/** One line per problem, `field: what is wrong`. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
}

export interface WebAttachment {
  name: string;
  mime: string;
  size: number;
  url: string;
}

/** One line of a chat as the page shows it; also the transcript's stored form. */
export interface ChatEntry {
  id: string;
  role: "user" | "bot";
  text: string;
  attachments: WebAttachment[];
  /** ISO 8601. */
  at: string;
}

export type ServerFrame =
  | ({ type: "message" } & ChatEntry)
  | { type: "history"; messages: ChatEntry[] }
  | { type: "typing" }
  /** A reply being written: `delta` extends the draft's text, `text` replaces it. */
  | ({ type: "draft"; draftId: string } & ({ delta: string } | { text: string }))
  /** The draft is gone: its final reply follows as a message, or the turn was stopped. */
  | { type: "draft_end"; draftId: string }
  /** The code and the values its message carries (core/api-errors.ts), for the page's own words. */
  | ({ type: "error"; message: string; messageId?: string } & WebChatError);

/** A reply collected for an API request. */
export interface ApiReply {
  text: string;
  attachments: WebAttachment[];
}

export interface ApiAnswer {
  replies: ApiReply[];
  outcome: HandleOutcome;
}

/** A user's message from either door (API or WebSocket), its id already chosen. */
export interface WebInbound {
  chatId: string;
  userId: string;
  userName?: string;
  timeZone?: string;
  text: string;
  messageId: string;
}

export function toInboundMessage(input: WebInbound, receivedAt: Date): InboundMessage {
  return {
    id: `web:${input.chatId}:${input.messageId}`,
    platformMessageId: input.messageId,
    channel: "web",
    chat: { id: input.chatId, type: "direct" },
    sender: {
      id: input.userId,
      ...(input.userName !== undefined ? { name: input.userName } : {}),
      ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
    },
    text: input.text,
    attachments: [],
    mentionsBot: true,
    receivedAt,
    raw: input,
  };
}
