/**
 * get_chat_history: the session's recent messages as the model's history holds them, read back into entries of
 * time, sender, role and text. User messages carry their time and sender in the frame user-message.ts wrote;
 * replies have no time of their own and are listed right after the message they answer.
 */
import type { ModelMessage } from "ai";
import type { SessionHistory } from "./history.js";
import { ATTACHMENTS_HEADING } from "../core/turn.js";

export interface HistoryEntry {
  /** Position in the history, oldest 0; pass the smallest one seen as `before` to page back. */
  index: number;
  role: "user" | "assistant";
  /** ISO time the message was received; null for the assistant's replies. */
  time: string | null;
  sender: string;
  message_id?: string;
  text: string;
  attachments?: string[];
}

export interface HistoryPage {
  entries: HistoryEntry[];
  has_more: boolean;
  /** Older turns were summarized away; only the recent ones are listed. */
  summarized: boolean;
}

export const MAX_ENTRY_CHARS = 1_000;
/** All the entries of one page together. */
const MAX_PAGE_CHARS = 16_000;
const MESSAGE_FRAME = /<untrusted_message([^>\n]*)>\n([\s\S]*?)\n<\/untrusted_message>/;
const ATTRIBUTE = /(\w+)="([^"]*)"/g;

export async function chatHistoryPage(
  history: SessionHistory,
  sessionKey: string,
  opts: { limit: number; before?: number | undefined },
): Promise<HistoryPage> {
  const record = await history.load(sessionKey);
  const all = record.messages.flatMap((message) => entryOf(message) ?? []).map((entry, index) => ({ ...entry, index }));
  const end = Math.min(opts.before ?? all.length, all.length);
  const page: HistoryEntry[] = [];
  let chars = 0;
  for (let i = end - 1; i >= 0 && page.length < opts.limit; i -= 1) {
    const entry = all[i] as HistoryEntry;
    chars += entry.text.length + (entry.attachments?.join("").length ?? 0);
    if (chars > MAX_PAGE_CHARS && page.length > 0) break;
    page.unshift(entry);
  }
  const oldest = page[0]?.index ?? end;
  return { entries: page, has_more: oldest > 0, summarized: record.summary !== null };
}

function entryOf(message: ModelMessage): Omit<HistoryEntry, "index"> | undefined {
  if (message.role === "user") return userEntry(textOf(message.content));
  if (message.role !== "assistant") return undefined;
  const text = textOf(message.content).trim();
  return text === "" ? undefined : { role: "assistant", time: null, sender: "you (the assistant)", text: clip(text) };
}

function userEntry(content: string): Omit<HistoryEntry, "index"> {
  const frame = MESSAGE_FRAME.exec(content);
  // A message without a frame is the gateway's own (a scheduled task's prompt): shown as it is.
  if (!frame) return { role: "user", time: null, sender: "the gateway", text: clip(content) };
  const attributes = Object.fromEntries([...(frame[1] ?? "").matchAll(ATTRIBUTE)].map(([, name, value]) => [name, unescape(value ?? "")]));
  const after = content.slice((frame.index ?? 0) + frame[0].length);
  const attachments = attachmentLines(after);
  return {
    role: "user",
    time: attributes.time ?? null,
    sender: attributes.sender ?? attributes.sender_id ?? "unknown",
    ...(attributes.message_id !== undefined ? { message_id: attributes.message_id } : {}),
    text: clip(frame[2] ?? ""),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

function attachmentLines(text: string): string[] {
  const start = text.indexOf(ATTACHMENTS_HEADING);
  if (start < 0) return [];
  const lines = text.slice(start + ATTACHMENTS_HEADING.length).split("\n").slice(1);
  const end = lines.findIndex((line) => !/^\d+\. /.test(line));
  return end < 0 ? lines : lines.slice(0, end);
}

function textOf(content: ModelMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

function clip(text: string): string {
  return text.length <= MAX_ENTRY_CHARS ? text : `${text.slice(0, MAX_ENTRY_CHARS)}… [${text.length - MAX_ENTRY_CHARS} more characters]`;
}

/** The inverse of framing.ts's escapeAttribute. */
function unescape(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
