/**
 * Webhook notifications as the WhatsApp Cloud API posts them (object whatsapp_business_account, entry[].changes[]
 * with field "messages"), and Meta's way of signing them: HMAC-SHA256 of the body bytes with the app secret, the
 * body being Meta's own JSON, which escapes every non-ASCII character (so only the bytes as sent verify).
 */
import { createHmac } from "node:crypto";

export interface Person {
  waId: string;
  name: string;
}

export const alice: Person = { waId: "15550001111", name: "Alice" };
export const mallory: Person = { waId: "15550009999", name: "Mallory" };

let counter = 0;
export const nextWamid = (): string => `wamid.HBgL${Date.now().toString(36)}${(counter++).toString(36).padStart(4, "0")}`;

export interface NotificationOptions {
  phoneNumberId: string;
  /** Seconds since the epoch, as a string (Meta's format). */
  timestamp: number;
}

/** One inbound message from `from`; `content` is the type-specific part, e.g. `{ type: "text", text: { body } }`. */
export function messageNotification(from: Person, content: Record<string, unknown>, opts: NotificationOptions & { id?: string; context?: { id: string } }): Record<string, unknown> {
  const message = { from: from.waId, id: opts.id ?? nextWamid(), timestamp: String(opts.timestamp), ...(opts.context ? { context: { from: from.waId, ...opts.context } } : {}), ...content };
  return wrap(opts.phoneNumberId, { contacts: [{ profile: { name: from.name }, wa_id: from.waId }], messages: [message] });
}

export function statusNotification(phoneNumberId: string, status: Record<string, unknown>): Record<string, unknown> {
  return wrap(phoneNumberId, { statuses: [status] });
}

function wrap(phoneNumberId: string, value: Record<string, unknown>): Record<string, unknown> {
  return {
    object: "whatsapp_business_account",
    entry: [{ id: "102290129340398", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId }, ...value } }] }],
  };
}

export const text = (body: string) => ({ type: "text", text: { body } });
export const buttonReply = (id: string, title: string) => ({ type: "interactive", interactive: { type: "button_reply", button_reply: { id, title } } });
export const listReply = (id: string, title: string) => ({ type: "interactive", interactive: { type: "list_reply", list_reply: { id, title } } });
export const voiceNote = (mediaId: string) => ({ type: "audio", audio: { mime_type: "audio/ogg; codecs=opus", sha256: "x", id: mediaId, voice: true } });
export const image = (mediaId: string, caption?: string) => ({ type: "image", image: { mime_type: "image/jpeg", sha256: "x", id: mediaId, ...(caption !== undefined ? { caption } : {}) } });
export const documentOf = (mediaId: string, filename: string) => ({ type: "document", document: { mime_type: "application/pdf", sha256: "x", id: mediaId, filename } });
export const location = (latitude: number, longitude: number, name?: string) => ({ type: "location", location: { latitude, longitude, ...(name !== undefined ? { name } : {}) } });

/** Meta's serialization: JSON with every non-ASCII character escaped as \uXXXX. */
export function metaJson(body: unknown): string {
  return JSON.stringify(body).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function sign(raw: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}`;
}
