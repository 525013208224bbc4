/**
 * WeCom's callback XML, validated at the edge: the outer envelope (`Encrypt`), and the decrypted message or event
 * turned into an InboundMessage. A self-built app's callback receives private messages only, so every chat is the
 * sender's direct chat with the app.
 */
import { XMLParser } from "fast-xml-parser";
import { z } from "zod";
import type { Attachment, InboundMessage } from "../../core/types.js";

/** Every value stays text: a MsgId has more digits than a double keeps. */
const parser = new XMLParser({ parseTagValue: false, trimValues: false, processEntities: true });

const text = z.string();

export const envelopeSchema = z.object({ xml: z.object({ Encrypt: text.min(1) }) });

const baseSchema = z.object({ ToUserName: text, FromUserName: text.min(1), CreateTime: text, AgentID: text.optional() });

export const messageSchema = z.discriminatedUnion("MsgType", [
  baseSchema.extend({ MsgType: z.literal("text"), Content: text, MsgId: text.min(1) }),
  baseSchema.extend({ MsgType: z.literal("image"), MediaId: text.min(1), PicUrl: text.optional(), MsgId: text.min(1) }),
  baseSchema.extend({ MsgType: z.literal("voice"), MediaId: text.min(1), Format: text.optional(), MsgId: text.min(1) }),
  baseSchema.extend({ MsgType: z.literal("file"), MediaId: text.min(1), FileName: text.optional(), Title: text.optional(), MsgId: text.min(1) }),
  baseSchema.extend({ MsgType: z.literal("video"), MediaId: text.min(1), MsgId: text.min(1) }),
  baseSchema.extend({ MsgType: z.literal("location"), Location_X: text, Location_Y: text, Label: text.optional(), MsgId: text.min(1) }),
  baseSchema.extend({ MsgType: z.literal("link"), Title: text.optional(), Url: text, MsgId: text.min(1) }),
  baseSchema.extend({
    MsgType: z.literal("event"),
    Event: text,
    EventKey: text.optional(),
    TaskId: text.optional(),
    ResponseCode: text.optional(),
  }),
]);

export type WecomMessage = z.output<typeof messageSchema>;
export type WecomEvent = Extract<WecomMessage, { MsgType: "event" }>;

/** Parses XML into its `<xml>` element's fields; null when it is not XML of that shape. */
export function parseXml(body: string): Record<string, unknown> | null {
  try {
    const parsed = parser.parse(body, true) as unknown;
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The decrypted callback: a message or an event, or the validation problem. */
export function readMessage(plaintext: string): { ok: true; message: WecomMessage } | { ok: false; problem: string } {
  const xml = parseXml(plaintext)?.xml;
  const parsed = messageSchema.safeParse(xml);
  return parsed.success ? { ok: true, message: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error) };
}

export function toInboundMessage(message: Exclude<WecomMessage, WecomEvent>): InboundMessage {
  const { text: body, attachments } = contentOf(message);
  return {
    id: `wecom:${message.MsgId}`,
    platformMessageId: message.MsgId,
    channel: "wecom",
    chat: { id: message.FromUserName, type: "direct" },
    sender: { id: message.FromUserName },
    text: body,
    attachments,
    mentionsBot: true,
    receivedAt: timeOf(message.CreateTime),
  };
}

function contentOf(message: Exclude<WecomMessage, WecomEvent>): { text: string; attachments: Attachment[] } {
  switch (message.MsgType) {
    case "text":
      return { text: message.Content, attachments: [] };
    case "image":
      return { text: "", attachments: [{ kind: "image", ref: message.MediaId }] };
    case "voice":
      // WeCom's voice is AMR: download() converts it for transcription.
      return { text: "", attachments: [{ kind: "voice", ref: message.MediaId, mime: "audio/amr", name: "voice.amr" }] };
    case "video":
      return { text: "", attachments: [{ kind: "video", ref: message.MediaId }] };
    case "file": {
      const name = message.FileName ?? message.Title;
      return { text: "", attachments: [{ kind: "file", ref: message.MediaId, ...(name ? { name } : {}) }] };
    }
    case "location": {
      const place = message.Label ? `${message.Label} ` : "";
      return { text: `[location] ${place}(${message.Location_X}, ${message.Location_Y})`, attachments: [] };
    }
    case "link":
      return { text: `[link] ${message.Title ?? ""} ${message.Url}`.replace(/\s+/g, " ").trim(), attachments: [] };
  }
}

/** CreateTime is seconds since the epoch. */
function timeOf(createTime: string): Date {
  const seconds = Number(createTime);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : new Date();
}
