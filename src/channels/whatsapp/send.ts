/**
 * Texts and files on their way to WhatsApp through `/{phone-number-id}/messages`. A reply is cut into messages of
 * at most 4,096 characters; buttons go under the last one, as reply buttons (3 at most) or a list (10 rows at
 * most), whose body holds at most 1,024 characters. Outside the person's 24-hour window a free-form message would
 * be refused, so with a reminder template configured the text goes as that template's variable instead.
 */
import { readFile } from "node:fs/promises";
import { fileTypeFromBuffer } from "file-type";
import { SendError } from "../../core/send-error.js";
import { chunkText } from "../../core/text.js";
import type { ButtonRow, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import { whatsappSendError, type GraphApi } from "./api.js";
import type { WhatsAppSettings } from "./config.js";
import { markdownToWhatsApp } from "./format.js";
import type { ServiceWindow } from "./window.js";

export const TEXT_LIMIT = 4096;
/** Captions and the body of an interactive message. */
export const CAPTION_LIMIT = 1024;
/** Documents; images (5 MB), audio and video (16 MB) over their own limits go as documents. */
export const UPLOAD_LIMIT_BYTES = 100 * 1024 * 1024;
const MAX_REPLY_BUTTONS = 3;
const MAX_LIST_ROWS = 10;
const BUTTON_TITLE_LIMIT = 20;
const ROW_TITLE_LIMIT = 24;
/** A template variable: the template's own text needs room too. */
const TEMPLATE_TEXT_LIMIT = 900;

const MEDIA_LIMITS = {
  image: { bytes: 5 * 1024 * 1024, mimes: /^image\/(jpeg|png)$/ },
  audio: { bytes: 16 * 1024 * 1024, mimes: /^audio\/(aac|amr|mpeg|mp4|ogg)$/ },
  video: { bytes: 16 * 1024 * 1024, mimes: /^video\/(mp4|3gpp)$/ },
} as const;

type Payload = Record<string, unknown>;

export interface SenderDeps {
  api: GraphApi;
  settings: WhatsAppSettings;
  window: ServiceWindow;
  log: Logger;
}

export class WhatsAppSender {
  constructor(private readonly deps: SenderDeps) {}

  async sendText(to: OutboundTarget, markdown: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const template = await this.templateFor(to.chatId);
    const buttons = template === null ? opts.buttons : undefined;
    const parts = template === null ? textParts(markdown, buttons !== undefined) : templateParts(markdown);
    if (template !== null) this.deps.log.info({ chatId: to.chatId, template, parts: parts.length }, "outside the 24-hour window: sending through the reminder template");
    const sent: SentMessage[] = [];
    for (const [index, part] of parts.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const last = index === parts.length - 1;
      const content = template !== null ? templateContent(template, this.deps.settings.templates.language, part) : last && buttons ? interactiveContent(part, buttons) : textContent(part);
      const context = index === 0 ? opts.replyTo : undefined;
      try {
        sent.push(await this.send(to.chatId, content, context));
      } catch (err) {
        throw whatsappSendError(err, `sending part ${index + 1} of ${parts.length} to ${to.chatId}`).withSent(sent);
      }
    }
    return sent;
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const bytes = await readFile(file.path);
    if (bytes.length > UPLOAD_LIMIT_BYTES) {
      throw new SendError(`WhatsApp: ${file.name} is ${bytes.length} bytes; WhatsApp takes at most ${UPLOAD_LIMIT_BYTES}`, { kind: "rejected" });
    }
    const mime = file.mime ?? (await fileTypeFromBuffer(bytes))?.mime ?? "application/octet-stream";
    const type = mediaTypeOf(file, mime, bytes.length);
    const id = await this.upload(bytes, mime, file.name).catch((err: unknown) => {
      throw whatsappSendError(err, `uploading ${file.name}`);
    });
    const caption = file.caption !== undefined && type !== "audio" ? markdownToWhatsApp(file.caption).slice(0, CAPTION_LIMIT) : undefined;
    // `voice`: WhatsApp shows it as a voice message (played in place, transcribed); it takes Ogg/Opus, which is what
    // delivery makes of a voice note.
    const voice = type === "audio" && file.kind === "voice" && /^audio\/ogg\b/.test(mime);
    const media = { id, ...(caption !== undefined ? { caption } : {}), ...(type === "document" ? { filename: file.name } : {}), ...(voice ? { voice: true } : {}) };
    const sent = await this.send(to.chatId, { type, [type]: media }, opts.replyTo).catch((err: unknown) => {
      throw whatsappSendError(err, `sending ${file.name} to ${to.chatId}`);
    });
    // An audio message has no caption: it follows as text.
    if (file.caption !== undefined && type === "audio") await this.sendText(to, file.caption);
    return sent;
  }

  /** Marks the person's message read; with `typing`, shows "typing…" until the reply or 25 s. */
  async markRead(messageId: string, typing: boolean): Promise<void> {
    await this.deps.api.call("POST", `${this.deps.settings.phoneNumberId}/messages`, {
      messaging_product: "whatsapp",
      status: "read",
      message_id: messageId,
      ...(typing ? { typing_indicator: { type: "text" } } : {}),
    });
  }

  /** Puts `emoji` on the message; an empty string takes the bot's reaction off. */
  async react(chatId: string, messageId: string, emoji: string): Promise<void> {
    await this.send(chatId, { type: "reaction", reaction: { message_id: messageId, emoji } }, undefined);
  }

  private async send(to: string, content: Payload, replyTo: string | undefined): Promise<SentMessage> {
    const body = { messaging_product: "whatsapp", recipient_type: "individual", to, ...(replyTo !== undefined ? { context: { message_id: replyTo } } : {}), ...content };
    const answer = await this.deps.api.call<{ messages?: Array<{ id?: string }> }>("POST", `${this.deps.settings.phoneNumberId}/messages`, body);
    const id = answer.messages?.[0]?.id;
    if (typeof id !== "string") throw new SendError(`WhatsApp accepted a message to ${to} without a message id`, { kind: "uncertain" });
    return { messageId: id, sentAt: new Date() };
  }

  private async upload(bytes: Buffer, mime: string, name: string): Promise<string> {
    const form = new FormData();
    form.set("messaging_product", "whatsapp");
    form.set("type", mime);
    form.set("file", new Blob([bytes], { type: mime }), name);
    const answer = await this.deps.api.call<{ id?: string }>("POST", `${this.deps.settings.phoneNumberId}/media`, form);
    if (typeof answer.id !== "string") throw new Error("the upload answer has no media id");
    return answer.id;
  }

  /** The reminder template's name when the person's window is closed and one is configured; null otherwise. */
  private async templateFor(waId: string): Promise<string | null> {
    const name = this.deps.settings.templates.reminder;
    if (name === null) return null;
    return (await this.deps.window.isOpen(waId)) ? null : name;
  }
}

/** The parts of a free-form text; with buttons, the last part fits an interactive message's body. */
export function textParts(markdown: string, withButtons: boolean): string[] {
  const parts = chunkText(markdown, { maxLength: TEXT_LIMIT }).map(trimLines);
  const last = parts.at(-1);
  if (!withButtons || last === undefined || last.length <= CAPTION_LIMIT) return parts;
  return [...parts.slice(0, -1), ...chunkText(last, { maxLength: CAPTION_LIMIT }).map(trimLines)];
}

/** A part cut at a paragraph keeps no blank lines at its ends. */
function trimLines(part: string): string {
  return part.replace(/^\n+|\n+$/g, "");
}

/** A template variable takes no line breaks, tabs or runs of more than four spaces (error 132018). */
function templateParts(markdown: string): string[] {
  return chunkText(markdown, { maxLength: TEMPLATE_TEXT_LIMIT }).map((part) =>
    markdownToWhatsApp(trimLines(part)).replace(/\s*\n\s*/g, " · ").replace(/\t/g, " ").replace(/ {4,}/g, "   "),
  );
}

function textContent(part: string): Payload {
  return { type: "text", text: { body: markdownToWhatsApp(part), preview_url: false } };
}

function templateContent(name: string, language: string, text: string): Payload {
  return { type: "template", template: { name, language: { code: language }, components: [{ type: "body", parameters: [{ type: "text", text }] }] } };
}

/** Up to three buttons as reply buttons, more as a list (the first ten). */
function interactiveContent(part: string, rows: readonly ButtonRow[]): Payload {
  const buttons = rows.flat();
  const body = { text: markdownToWhatsApp(part) };
  if (buttons.length <= MAX_REPLY_BUTTONS) {
    const replies = buttons.map((b) => ({ type: "reply", reply: { id: b.actionId, title: clip(b.label, BUTTON_TITLE_LIMIT) } }));
    return { type: "interactive", interactive: { type: "button", body, action: { buttons: replies } } };
  }
  const listRows = buttons.slice(0, MAX_LIST_ROWS).map((b) => ({ id: b.actionId, title: clip(b.label, ROW_TITLE_LIMIT) }));
  return { type: "interactive", interactive: { type: "list", body, action: { button: "Choose", sections: [{ rows: listRows }] } } };
}

function mediaTypeOf(file: OutboundFile, mime: string, size: number): "image" | "audio" | "video" | "document" {
  const type = file.kind === "voice" ? "audio" : file.kind;
  if (type !== "image" && type !== "audio" && type !== "video") return "document";
  const limit = MEDIA_LIMITS[type];
  return size <= limit.bytes && limit.mimes.test(mime.split(";")[0]!.trim()) ? type : "document";
}

function clip(label: string, max: number): string {
  const chars = [...label];
  return chars.length <= max ? label : `${chars.slice(0, max - 1).join("")}…`;
}
