/**
 * A robot message (the data of a `/v1.0/im/bot/messages/get` callback) turned into an InboundMessage. Direct chats
 * are named by the sender's staff id (what the one-to-one send API takes), groups by their conversation id
 * (`cid...`, what the group send API takes). In groups DingTalk hands the robot only messages that @-mention it.
 */
import { z } from "zod";
import type { Attachment, InboundMessage } from "../../core/types.js";

const richPart = z.looseObject({ text: z.string().optional(), type: z.string().optional(), downloadCode: z.string().optional(), pictureDownloadCode: z.string().optional() });

export const robotMessageSchema = z.looseObject({
  msgId: z.string().min(1),
  msgtype: z.string(),
  conversationId: z.string().min(1),
  /** "1": one-to-one, "2": group. */
  conversationType: z.string(),
  conversationTitle: z.string().optional(),
  senderId: z.string().optional(),
  senderStaffId: z.string().optional(),
  senderUnionId: z.string().optional(),
  senderNick: z.string().optional(),
  isInAtList: z.boolean().optional(),
  createAt: z.number().optional(),
  sessionWebhook: z.string().optional(),
  sessionWebhookExpiredTime: z.number().optional(),
  robotCode: z.string().optional(),
  text: z.object({ content: z.string() }).optional(),
  content: z
    .looseObject({
      downloadCode: z.string().optional(),
      pictureDownloadCode: z.string().optional(),
      fileName: z.string().optional(),
      recognition: z.string().optional(),
      duration: z.union([z.number(), z.string()]).optional(),
      richText: z.array(richPart).optional(),
    })
    .optional(),
});

export type RobotMessage = z.output<typeof robotMessageSchema>;

export function isGroupChat(chatId: string): boolean {
  return chatId.startsWith("cid");
}

/** The chat id replies go to. */
export function chatIdOf(message: RobotMessage): string {
  return message.conversationType === "2" ? message.conversationId : (message.senderStaffId ?? message.senderId ?? message.conversationId);
}

export function toInboundMessage(message: RobotMessage): InboundMessage {
  const group = message.conversationType === "2";
  const { text, attachments } = contentOf(message);
  const senderId = message.senderStaffId ?? message.senderId ?? "unknown";
  const unionId = message.senderUnionId ?? message.senderId;
  return {
    id: `dingtalk:${message.msgId}`,
    platformMessageId: message.msgId,
    channel: "dingtalk",
    chat: { id: chatIdOf(message), type: group ? "group" : "direct", ...(message.conversationTitle ? { title: message.conversationTitle } : {}) },
    sender: { id: senderId, ...(message.senderNick ? { name: message.senderNick } : {}), ...(unionId ? { username: unionId } : {}) },
    text,
    attachments,
    // DingTalk delivers group messages to the robot only when it is @-mentioned.
    mentionsBot: group ? (message.isInAtList ?? true) : true,
    receivedAt: message.createAt ? new Date(message.createAt) : new Date(),
  };
}

function contentOf(message: RobotMessage): { text: string; attachments: Attachment[] } {
  const content = message.content ?? {};
  const code = content.downloadCode ?? content.pictureDownloadCode;
  switch (message.msgtype) {
    case "text":
      return { text: (message.text?.content ?? "").trim(), attachments: [] };
    case "richText": {
      const parts = content.richText ?? [];
      const text = parts.map((p) => p.text ?? "").join("").trim();
      const attachments: Attachment[] = parts.flatMap((p) => {
        const ref = p.downloadCode ?? p.pictureDownloadCode;
        return ref && p.type === "picture" ? [{ kind: "image" as const, ref }] : [];
      });
      return { text, attachments };
    }
    case "picture":
      return { text: "", attachments: code ? [{ kind: "image", ref: code }] : [] };
    case "file":
      return { text: "", attachments: code ? [{ kind: "file", ref: code, ...(content.fileName ? { name: content.fileName } : {}) }] : [] };
    case "audio": {
      // DingTalk's own recognition comes with the voice message: it is the text; the audio stays attached.
      const durationSec = Number(content.duration) / 1000;
      const attachment: Attachment[] = code ? [{ kind: "voice", ref: code, ...(Number.isFinite(durationSec) ? { durationSec } : {}) }] : [];
      return { text: content.recognition?.trim() ?? "", attachments: content.recognition ? [] : attachment };
    }
    case "video":
      return { text: "", attachments: code ? [{ kind: "video", ref: code }] : [] };
    default:
      return { text: `[${message.msgtype} message]`, attachments: [] };
  }
}
