/**
 * What a WhatsApp webhook carries, as the gateway's types: messages become InboundMessages (text, image, audio and
 * voice notes, video, document, sticker, location, a reply to a template's quick-reply button), an interactive
 * reply to one of the bot's buttons or lists becomes a press, and statuses and errors are reported for the log.
 * Every chat is one-to-one: the chat id is the person's wa_id.
 */
import { z } from "zod";
import type { Attachment, AttachmentKind, InboundMessage } from "../../core/types.js";

const mediaSchema = z.object({
  id: z.string().min(1),
  mime_type: z.string().optional(),
  caption: z.string().optional(),
  filename: z.string().optional(),
  voice: z.boolean().optional(),
});

const messageSchema = z
  .object({
    from: z.string().min(1),
    id: z.string().min(1),
    timestamp: z.string().regex(/^\d+$/),
    type: z.string(),
    context: z.object({ id: z.string().optional(), from: z.string().optional() }).optional(),
    text: z.object({ body: z.string() }).optional(),
    image: mediaSchema.optional(),
    audio: mediaSchema.optional(),
    video: mediaSchema.optional(),
    document: mediaSchema.optional(),
    sticker: mediaSchema.optional(),
    location: z.object({ latitude: z.number(), longitude: z.number(), name: z.string().optional(), address: z.string().optional() }).optional(),
    interactive: z
      .object({
        type: z.string(),
        button_reply: z.object({ id: z.string(), title: z.string() }).optional(),
        list_reply: z.object({ id: z.string(), title: z.string(), description: z.string().optional() }).optional(),
      })
      .optional(),
    button: z.object({ text: z.string(), payload: z.string().optional() }).optional(),
  })
  .loose();

const errorSchema = z.object({ code: z.number(), title: z.string().optional(), message: z.string().optional(), error_data: z.object({ details: z.string() }).optional() }).loose();

const statusSchema = z
  .object({ id: z.string(), status: z.string(), recipient_id: z.string().optional(), errors: z.array(errorSchema).optional() })
  .loose();

const valueSchema = z
  .object({
    metadata: z.object({ phone_number_id: z.string() }).loose(),
    contacts: z.array(z.object({ wa_id: z.string(), profile: z.object({ name: z.string() }).optional() }).loose()).optional(),
    messages: z.array(z.unknown()).optional(),
    statuses: z.array(z.unknown()).optional(),
    errors: z.array(errorSchema).optional(),
  })
  .loose();

export const notificationSchema = z.object({
  object: z.literal("whatsapp_business_account"),
  entry: z.array(z.object({ changes: z.array(z.object({ field: z.string(), value: z.unknown() }).loose()) }).loose()),
});

export type StatusUpdate = z.output<typeof statusSchema>;
export type PlatformError = z.output<typeof errorSchema>;

/** A tap on one of the bot's reply buttons or list rows: the id is the gateway's action id. */
export interface InteractiveReply {
  id: string;
  from: string;
  name?: string;
  actionId: string;
  /** The bot's message that carried the buttons. */
  messageId: string;
}

export interface Notification {
  messages: InboundMessage[];
  replies: InteractiveReply[];
  statuses: StatusUpdate[];
  errors: PlatformError[];
  /** Entries that were not for this phone number, or not understood: logged, never fatal. */
  skipped: string[];
}

/** Everything in one webhook body for `phoneNumberId`. */
export function readNotification(body: z.output<typeof notificationSchema>, phoneNumberId: string, receivedAt: Date): Notification {
  const out: Notification = { messages: [], replies: [], statuses: [], errors: [], skipped: [] };
  for (const change of body.entry.flatMap((e) => e.changes)) {
    if (change.field !== "messages") continue;
    const value = valueSchema.safeParse(change.value);
    if (!value.success) {
      out.skipped.push(`a change without metadata: ${value.error.issues[0]?.message}`);
      continue;
    }
    if (value.data.metadata.phone_number_id !== phoneNumberId) {
      out.skipped.push(`a change for phone number id ${value.data.metadata.phone_number_id}`);
      continue;
    }
    const names = new Map((value.data.contacts ?? []).map((c) => [c.wa_id, c.profile?.name]));
    for (const raw of value.data.messages ?? []) {
      const parsed = messageSchema.safeParse(raw);
      if (!parsed.success) {
        out.skipped.push(`a malformed message: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`);
        continue;
      }
      const reply = interactiveReplyOf(parsed.data, names.get(parsed.data.from));
      if (reply) {
        out.replies.push(reply);
        continue;
      }
      const message = messageOf(parsed.data, names.get(parsed.data.from), receivedAt);
      if (message) out.messages.push(message);
      else out.skipped.push(`a message of type ${parsed.data.type}`);
    }
    for (const raw of value.data.statuses ?? []) {
      const parsed = statusSchema.safeParse(raw);
      if (parsed.success) out.statuses.push(parsed.data);
      else out.skipped.push("a malformed status");
    }
    out.errors.push(...(value.data.errors ?? []));
  }
  return out;
}

type RawMessage = z.output<typeof messageSchema>;

function interactiveReplyOf(m: RawMessage, name: string | undefined): InteractiveReply | undefined {
  const choice = m.interactive?.button_reply ?? m.interactive?.list_reply;
  const messageId = m.context?.id;
  if (!choice || messageId === undefined) return undefined;
  return { id: m.id, from: m.from, ...(name !== undefined ? { name } : {}), actionId: choice.id, messageId };
}

function messageOf(m: RawMessage, name: string | undefined, receivedAt: Date): InboundMessage | undefined {
  const content = contentOf(m);
  if (!content) return undefined;
  return {
    id: `whatsapp:${m.id}`,
    platformMessageId: m.id,
    channel: "whatsapp",
    chat: { id: m.from, type: "direct" },
    sender: { id: m.from, ...(name !== undefined ? { name } : {}) },
    text: content.text,
    attachments: content.attachments,
    ...(m.context?.id !== undefined ? { replyTo: { messageId: m.context.id } } : {}),
    // One-to-one: every message is for the bot.
    mentionsBot: true,
    receivedAt,
    raw: m,
  };
}

const MEDIA_KINDS: ReadonlyArray<[keyof RawMessage & ("image" | "audio" | "video" | "document" | "sticker"), AttachmentKind]> = [
  ["image", "image"],
  ["audio", "audio"],
  ["video", "video"],
  ["document", "file"],
  ["sticker", "sticker"],
];

function contentOf(m: RawMessage): { text: string; attachments: Attachment[] } | undefined {
  if (m.type === "text" && m.text) return { text: m.text.body, attachments: [] };
  if (m.type === "location" && m.location) {
    const { latitude, longitude, name, address } = m.location;
    const place = [name, address].filter(Boolean).join(", ");
    return { text: `[location: ${latitude}, ${longitude}${place ? ` (${place})` : ""}]`, attachments: [] };
  }
  if (m.type === "button" && m.button) return { text: m.button.text, attachments: [] };
  for (const [field, kind] of MEDIA_KINDS) {
    const media = m[field];
    if (m.type !== field || !media) continue;
    const attachment: Attachment = {
      kind: field === "audio" && media.voice === true ? "voice" : kind,
      ref: media.id,
      ...(media.filename !== undefined ? { name: media.filename } : {}),
      ...(media.mime_type !== undefined ? { mime: media.mime_type.split(";")[0]!.trim() } : {}),
    };
    return { text: media.caption ?? "", attachments: [attachment] };
  }
  return undefined;
}
