/**
 * Buttons on Feishu: a reply with buttons goes as an interactive card (JSON 2.0) whose buttons call back with the
 * gateway's action id, and a press arrives as a card.action.trigger callback (over the long connection or the
 * webhook). Feishu waits at most 3 s for the callback's answer, which can show a toast to the presser and replace
 * the card: a done action's card comes back without its buttons.
 */
import { z } from "zod";
import type { Logger } from "../../infra/log.js";
import type { ButtonPress, ButtonPressHandler, ButtonRow, PressAnswer } from "../../core/types.js";

export const CARD_ACTION = "card.action.trigger";

/** Answer within Feishu's 3 s; whatever the press does after that goes on in the background. */
const ANSWER_WITHIN_MS = 2_500;
/** Cards whose text is remembered, to send them back without their buttons. */
const REMEMBERED_CARDS = 500;

const TYPES = { primary: "primary", danger: "danger", secondary: "default" } as const;

const cardActionSchema = z.object({
  header: z.object({ event_id: z.string().min(1), event_type: z.literal(CARD_ACTION) }),
  event: z.object({
    operator: z.object({ open_id: z.string().min(1) }),
    action: z.object({ value: z.object({ action: z.string() }).loose() }).loose(),
    context: z.object({ open_message_id: z.string().min(1), open_chat_id: z.string().min(1) }),
  }),
});

/** A card action callback's answer: a toast and/or the card to show instead. */
export interface CardActionAnswer {
  toast?: { type: "info" | "success" | "error" | "warning"; content: string };
  card?: { type: "raw"; data: object };
}

/** The card for a reply with buttons: its markdown, then one row of buttons per button row. */
export function buttonCard(markdown: string, rows: readonly ButtonRow[]): object {
  const buttonRows = rows.map((row) => ({
    tag: "column_set",
    flex_mode: "flow",
    columns: row.map((button) => ({
      tag: "column",
      width: "auto",
      elements: [
        {
          tag: "button",
          text: { tag: "plain_text", content: button.label },
          type: TYPES[button.style ?? "secondary"],
          behaviors: [{ type: "callback", value: { action: button.actionId } }],
        },
      ],
    })),
  }));
  return { schema: "2.0", config: { width_mode: "fill" }, body: { elements: [{ tag: "markdown", content: markdown }, ...buttonRows] } };
}

export function isCardAction(payload: unknown): boolean {
  const header = (payload as { header?: { event_type?: unknown } } | null)?.header;
  return header?.event_type === CARD_ACTION;
}

/** Turns card action callbacks into button presses and their answers. */
export class CardActions {
  private handler: ButtonPressHandler | undefined;
  /** message id -> the card's markdown, newest last. */
  private readonly texts = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly log: Logger) {}

  attach(handler: ButtonPressHandler | undefined): void {
    this.handler = handler;
  }

  async detach(): Promise<void> {
    this.handler = undefined;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Notes a sent card's text, so that a done press can show it again without buttons. */
  remember(messageId: string, markdown: string): void {
    this.texts.set(messageId, markdown);
    if (this.texts.size > REMEMBERED_CARDS) this.texts.delete(this.texts.keys().next().value!);
  }

  /** Answers one callback: as soon as the press is answered, or empty after the deadline. Never rejects. */
  async take(payload: unknown): Promise<CardActionAnswer> {
    const parsed = cardActionSchema.safeParse(payload);
    if (!parsed.success) {
      this.log.warn({ problems: z.prettifyError(parsed.error) }, "ignored a malformed Feishu card action");
      return {};
    }
    const handler = this.handler;
    if (!handler) return { toast: { type: "warning", content: "The bot is restarting; please press again in a moment." } };
    const { event, header } = parsed.data;
    let answer!: (reply: CardActionAnswer) => void;
    const answered = new Promise<CardActionAnswer>((resolve) => (answer = resolve));
    const press: ButtonPress = {
      channel: "feishu",
      id: header.event_id,
      // The callback names the chat but not its kind; the gateway's record of the button knows it.
      chat: { id: event.context.open_chat_id, type: "group" },
      sender: { id: event.operator.open_id },
      actionId: event.action.value.action,
      messageId: event.context.open_message_id,
      receivedAt: new Date(),
      answer: async (reply) => answer(this.answerOf(event.context.open_message_id, reply)),
    };
    const work = handler(press).finally(() => {
      this.inFlight.delete(work);
      answer({});
    });
    this.inFlight.add(work);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CardActionAnswer>((resolve) => (timer = setTimeout(() => resolve({}), ANSWER_WITHIN_MS)));
    const reply = await Promise.race([answered, late]);
    clearTimeout(timer);
    return reply;
  }

  private answerOf(messageId: string, reply: PressAnswer): CardActionAnswer {
    const text = this.texts.get(messageId);
    return {
      ...(reply.notice !== undefined ? { toast: { type: "info" as const, content: reply.notice } } : {}),
      ...(reply.clearButtons && text !== undefined ? { card: { type: "raw" as const, data: buttonCard(text, []) } } : {}),
    };
  }
}
