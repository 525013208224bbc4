/**
 * The `content` of a received message (a JSON string whose shape depends on message_type) turned into text and
 * attachments. Media is not downloaded here: an attachment's ref names the message and key to fetch it by later.
 */
import { z } from "zod";
import type { Attachment } from "../../core/types.js";
import { resourceRef } from "./media.js";
import type { Mentions } from "./mentions.js";
import { flattenPost } from "./post.js";

export interface MessageParts {
  text: string;
  attachments: Attachment[];
}

const textSchema = z.object({ text: z.string() });
const imageSchema = z.object({ image_key: z.string() });
const fileSchema = z.object({ file_key: z.string(), file_name: z.string().nullish() });
const audioSchema = z.object({ file_key: z.string(), duration: z.number().nullish() });
const mediaSchema = z.object({ file_key: z.string(), file_name: z.string().nullish(), duration: z.number().nullish() });

export function parseContent(messageType: string, content: string, messageId: string, mentions: Mentions): MessageParts {
  const json = parseJson(content);
  const attach = (kind: Attachment["kind"], key: string, extra: Partial<Attachment> = {}): Attachment | null => {
    const ref = resourceRef(messageId, key);
    return ref === null ? null : { kind, ref, ...extra };
  };
  const only = (attachment: Attachment | null): MessageParts => ({
    text: attachment ? "" : `[${messageType} message]`,
    attachments: attachment ? [attachment] : [],
  });

  switch (messageType) {
    case "text": {
      const parsed = textSchema.safeParse(json);
      return parsed.success ? { text: mentions.resolve(parsed.data.text), attachments: [] } : unreadable(messageType);
    }
    case "post":
      return flattenPost(json, mentions, (kind, key) => attach(kind, key)) ?? unreadable(messageType);
    case "image": {
      const parsed = imageSchema.safeParse(json);
      return parsed.success ? only(attach("image", parsed.data.image_key)) : unreadable(messageType);
    }
    case "file": {
      const parsed = fileSchema.safeParse(json);
      if (!parsed.success) return unreadable(messageType);
      return only(attach("file", parsed.data.file_key, named(parsed.data.file_name)));
    }
    case "audio": {
      const parsed = audioSchema.safeParse(json);
      if (!parsed.success) return unreadable(messageType);
      return only(attach("voice", parsed.data.file_key, timed(parsed.data.duration)));
    }
    case "media": {
      const parsed = mediaSchema.safeParse(json);
      if (!parsed.success) return unreadable(messageType);
      const { file_key: key, file_name: name, duration } = parsed.data;
      return only(attach("video", key, { ...named(name), ...timed(duration) }));
    }
    default:
      // Stickers, cards, shared chats, ...: the model is told what arrived rather than nothing at all.
      return { text: `[${messageType} message]`, attachments: [] };
  }
}

function parseJson(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return undefined;
  }
}

function unreadable(messageType: string): MessageParts {
  return { text: `[${messageType} message that could not be read]`, attachments: [] };
}

function named(name: string | null | undefined): Partial<Attachment> {
  return name ? { name } : {};
}

/** Feishu gives durations in milliseconds. */
function timed(durationMs: number | null | undefined): Partial<Attachment> {
  return typeof durationMs === "number" && durationMs >= 0 ? { durationSec: Math.round(durationMs / 1000) } : {};
}
