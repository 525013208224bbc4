/**
 * The fake's changes to messages already sent: a card message's content replaced (PATCH), a text or post
 * message edited (PUT, same type only), a message recalled (DELETE), and the bot's reactions on any message it
 * knows (POST/DELETE .../reactions). A recalled or unknown message answers 230011, as Feishu does.
 */
import { randomUUID } from "node:crypto";
import { refusal, success, type Answer } from "./answers.js";
import { checkContent, isRecord } from "./content-rules.js";
import type { BotSent } from "./open-api.js";

export interface MessageEdit {
  messageId: string;
  method: "PATCH" | "PUT";
  at: number;
}

export interface Reaction {
  reactionId: string;
  emojiType: string;
}

const GONE = { status: 400, code: 230011, msg: "The message is not found, maybe not exist or deleted." };
const invalid = (msg: string) => refusal({ status: 400, code: 230001, msg: `invalid request param: ${msg}` });
const NO_UPLOADS = { images: new Set<string>(), files: new Map<string, string>() };

export class FakeMessageEdits {
  readonly edits: MessageEdit[] = [];
  /** The bot's reactions by message id. */
  readonly reactions = new Map<string, Reaction[]>();

  constructor(
    private readonly sentMessage: (messageId: string) => BotSent | undefined,
    private readonly knows: (messageId: string) => boolean,
    private readonly changed: () => void,
    private readonly now: () => number,
  ) {}

  patch(messageId: string, body: unknown): Answer {
    const sent = this.live(messageId);
    if (!sent) return refusal(GONE);
    if (sent.msgType !== "interactive") return invalid("only card messages can be updated with PATCH");
    if (!isRecord(body)) return invalid("body");
    const problem = checkContent("interactive", body.content, NO_UPLOADS);
    if (problem) return refusal(problem);
    return this.replace(sent, body.content as string, "PATCH");
  }

  put(messageId: string, body: unknown): Answer {
    const sent = this.live(messageId);
    if (!sent) return refusal(GONE);
    if (!isRecord(body)) return invalid("body");
    if (sent.msgType !== "text" && sent.msgType !== "post") return invalid("only text and post messages can be edited");
    if (body.msg_type !== sent.msgType) return invalid("msg_type must stay the same");
    const problem = checkContent(body.msg_type, body.content, NO_UPLOADS);
    if (problem) return refusal(problem);
    return this.replace(sent, body.content as string, "PUT");
  }

  recall(messageId: string): Answer {
    const sent = this.live(messageId);
    if (!sent) return refusal(GONE);
    sent.deleted = true;
    this.changed();
    return success();
  }

  addReaction(messageId: string, body: unknown): Answer {
    if (!this.knows(messageId)) return refusal(GONE);
    const emojiType = isRecord(body) && isRecord(body.reaction_type) ? body.reaction_type.emoji_type : undefined;
    if (typeof emojiType !== "string" || emojiType === "") return invalid("reaction_type.emoji_type");
    const reaction = { reactionId: `ZCaCIjUBVVWSrm5L-${randomUUID()}`, emojiType };
    this.reactions.set(messageId, [...(this.reactions.get(messageId) ?? []), reaction]);
    this.changed();
    const operator = { operator_id: "cli_fake", operator_type: "app" };
    return success({ reaction_id: reaction.reactionId, operator, action_time: String(Date.now()), reaction_type: { emoji_type: emojiType } });
  }

  removeReaction(messageId: string, reactionId: string): Answer {
    const reactions = this.reactions.get(messageId) ?? [];
    const reaction = reactions.find((r) => r.reactionId === reactionId);
    if (!reaction) return refusal({ status: 400, code: 231003, msg: "The reaction does not exist." });
    this.reactions.set(messageId, reactions.filter((r) => r !== reaction));
    this.changed();
    return success({ reaction_id: reactionId, reaction_type: { emoji_type: reaction.emojiType } });
  }

  private live(messageId: string): BotSent | undefined {
    const sent = this.sentMessage(messageId);
    return sent && !sent.deleted ? sent : undefined;
  }

  private replace(sent: BotSent, content: string, method: MessageEdit["method"]): Answer {
    sent.content = JSON.parse(content) as Record<string, unknown>;
    delete sent.cardId;
    this.edits.push({ messageId: sent.messageId, method, at: this.now() });
    this.changed();
    return success();
  }
}
