/**
 * The fake CardKit v1, modelled on Feishu's documentation: card entities (card JSON 2.0 only, 30 KB at most) that
 * a message may show once (`{"type":"card","data":{"card_id":...}}`); streaming a markdown or plain_text element's
 * full text (1-100,000 characters) while the card's streaming_mode is on (300309 once it is off); card settings.
 * Every operation on a card carries a sequence that must be greater than the card's previous one (300317).
 */
import { success, refusal, type Answer } from "./answers.js";
import { countTables, isRecord } from "./content-rules.js";

export interface FakeCard {
  id: string;
  /** The card JSON as it is now; a message showing the card shows this very object. */
  json: { schema: string; config: Record<string, unknown>; body: { elements: Array<Record<string, unknown>> } };
  sequence: number;
  /** Every text its elements showed, in order, from the creation on. */
  history: string[];
  /** The message showing it, once sent. */
  messageId?: string;
}

export interface CardOperation {
  cardId: string;
  kind: "content" | "settings";
  sequence: number;
  at: number;
}

const CARD_LIMIT_BYTES = 30 * 1024;
const MAX_CARD_TABLES = 5;
const invalid = (msg: string) => refusal({ status: 400, code: 10002, msg: `Your request contains an invalid request parameter. ${msg}` });
const notFound = () => refusal({ status: 400, code: 200740, msg: "The card entity does not exist" });

export class FakeCardKit {
  readonly cards = new Map<string, FakeCard>();
  /** Every accepted content update and settings change, in order. */
  readonly operations: CardOperation[] = [];
  private counter = 0;

  constructor(
    private readonly changed: () => void,
    private readonly now: () => number,
  ) {}

  create(body: unknown): Answer {
    if (!isRecord(body) || body.type !== "card_json" || typeof body.data !== "string") return invalid("type must be card_json with data");
    let card: unknown;
    try {
      card = JSON.parse(body.data);
    } catch {
      return refusal({ status: 400, code: 200220, msg: "Failed to generate card content" });
    }
    if (!isRecord(card) || card.schema !== "2.0" || !isRecord(card.body) || !Array.isArray(card.body.elements)) {
      return refusal({ status: 400, code: 200220, msg: "Failed to generate card content: only card JSON 2.0 is supported" });
    }
    const config = isRecord(card.config) ? card.config : {};
    if (config.streaming_mode === true && config.update_multi === false) return refusal({ status: 400, code: 300302, msg: "update_multi property is false" });
    const problem = checkSize(card);
    if (problem) return problem;
    const id = `7${String(++this.counter).padStart(18, "0")}`;
    const json = { ...(card as FakeCard["json"]), config };
    const history = json.body.elements.flatMap((el) => (typeof el.content === "string" ? [el.content] : []));
    this.cards.set(id, { id, json, sequence: 0, history });
    return success({ card_id: id });
  }

  /** The card a new message shows, or why it cannot. */
  attach(cardId: unknown, messageId: string): FakeCard["json"] | Answer {
    const card = typeof cardId === "string" ? this.cards.get(cardId) : undefined;
    if (!card) return refusal({ status: 400, code: 230099, msg: "Failed to create card content, ext=ErrCode: 200740; ErrMsg: card entity not exist" });
    if (card.messageId !== undefined) return refusal({ status: 400, code: 230099, msg: "Failed to create card content, ext=ErrCode: 300301; ErrMsg: card entity has been sent" });
    card.messageId = messageId;
    return card.json;
  }

  streamContent(cardId: string, elementId: string, body: unknown): Answer {
    const card = this.cards.get(cardId);
    if (!card) return notFound();
    if (!isRecord(body) || typeof body.content !== "string" || body.content.length < 1 || body.content.length > 100_000) {
      return invalid("content must be 1-100000 characters");
    }
    const element = card.json.body.elements.find((el) => el.element_id === elementId);
    if (!element) return refusal({ status: 400, code: 300313, msg: `Failed to update element properties: no element ${elementId}` });
    if (element.tag !== "markdown" && element.tag !== "plain_text") return refusal({ status: 400, code: 300310, msg: "Only update text" });
    if (card.json.config.streaming_mode !== true) return refusal({ status: 400, code: 300309, msg: "Card streaming closed" });
    const stale = this.checkSequence(card, body.sequence);
    if (stale) return stale;
    const before = element.content;
    element.content = body.content;
    const tooLarge = checkSize(card.json);
    if (tooLarge) {
      element.content = before;
      return tooLarge;
    }
    card.history.push(body.content);
    this.accept(card, "content", body.sequence as number);
    return success();
  }

  settings(cardId: string, body: unknown): Answer {
    const card = this.cards.get(cardId);
    if (!card) return notFound();
    if (!isRecord(body) || typeof body.settings !== "string") return invalid("settings must be a JSON string");
    let settings: unknown;
    try {
      settings = JSON.parse(body.settings);
    } catch {
      return invalid("settings is not valid JSON");
    }
    if (!isRecord(settings) || (settings.config !== undefined && !isRecord(settings.config))) return invalid("settings.config must be an object");
    const stale = this.checkSequence(card, body.sequence);
    if (stale) return stale;
    Object.assign(card.json.config, settings.config ?? {});
    this.accept(card, "settings", body.sequence as number);
    return success();
  }

  private checkSequence(card: FakeCard, sequence: unknown): Answer | null {
    if (typeof sequence !== "number" || !Number.isInteger(sequence) || sequence < 1 || sequence > 2 ** 31 - 1) return invalid("sequence must be a positive int32");
    if (sequence <= card.sequence) {
      return refusal({ status: 400, code: 300317, msg: "The sequence number for operating on the card did not increment consecutively" });
    }
    return null;
  }

  private accept(card: FakeCard, kind: CardOperation["kind"], sequence: number): void {
    card.sequence = sequence;
    this.operations.push({ cardId: card.id, kind, sequence, at: this.now() });
    this.changed();
  }
}

function checkSize(card: object): Answer | null {
  if (Buffer.byteLength(JSON.stringify(card)) > CARD_LIMIT_BYTES) return refusal({ status: 400, code: 200860, msg: "Card content exceeds limit." });
  const elements = (card as FakeCard["json"]).body.elements;
  const tables = elements.reduce((n, el) => n + (typeof el.content === "string" ? countTables(el.content) : 0), 0);
  if (tables > MAX_CARD_TABLES) return refusal({ status: 400, code: 11310, msg: "card table number over limit" });
  return null;
}
