/**
 * What the fake Open API accepts as message content, modelled on Feishu's documented limits: `content` is a JSON
 * string shaped by msg_type; text up to 150 KB, posts and cards up to 30 KB (230025 beyond); a card's markdown
 * may hold at most five tables (230099 with ErrCode 11310 otherwise); images and files must be uploaded first.
 */

export interface Refusal {
  status: number;
  code: number;
  msg: string;
}

export interface Uploaded {
  images: ReadonlySet<string>;
  /** file_key -> file_type */
  files: ReadonlyMap<string, string>;
}

const TEXT_LIMIT = 150 * 1024;
const RICH_LIMIT = 30 * 1024;
const MAX_CARD_TABLES = 5;

const invalid = (msg: string): Refusal => ({ status: 400, code: 230001, msg: `invalid request param: ${msg}` });

export function checkContent(msgType: unknown, content: unknown, uploaded: Uploaded): Refusal | null {
  if (typeof content !== "string") return invalid("content must be a JSON string");
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return invalid("content is not valid JSON");
  }
  const body = isRecord(parsed) ? parsed : null;
  if (!body) return invalid("content must be a JSON object");
  const bytes = Buffer.byteLength(content);
  switch (msgType) {
    case "text":
      if (typeof body.text !== "string") return invalid("text content needs a text field");
      return bytes > TEXT_LIMIT ? tooLong() : null;
    case "post":
      if (!Object.values(body).some(isPost)) return invalid("post content needs a locale with a content array of paragraphs");
      return bytes > RICH_LIMIT ? tooLong() : null;
    case "interactive":
      return checkCard(body, bytes);
    case "image":
      return typeof body.image_key === "string" && uploaded.images.has(body.image_key) ? null : invalid("unknown image_key");
    case "file":
    case "audio": {
      const type = typeof body.file_key === "string" ? uploaded.files.get(body.file_key) : undefined;
      if (type === undefined) return invalid("unknown file_key");
      return msgType === "audio" && type !== "opus" ? invalid("an audio message needs an opus file") : null;
    }
    default:
      return invalid(`unsupported msg_type ${String(msgType)}`);
  }
}

function checkCard(card: Record<string, unknown>, bytes: number): Refusal | null {
  const elements = card.schema === "2.0" && isRecord(card.body) ? card.body.elements : card.elements;
  if (!Array.isArray(elements) || !elements.every((el) => isRecord(el) && typeof el.tag === "string")) {
    return { status: 400, code: 230099, msg: "Failed to create card content, ext=ErrCode: 200621; ErrMsg: parse card json err" };
  }
  if (bytes > RICH_LIMIT) return tooLong();
  if (card.schema === "2.0") {
    const problem = buttonProblem(elements);
    if (problem) return { status: 400, code: 230099, msg: `Failed to create card content, ext=ErrCode: 200861; ErrMsg: ${problem}` };
  }
  const tables = elements.reduce((n, el) => n + (typeof el.content === "string" ? countTables(el.content) : 0), 0);
  if (tables > MAX_CARD_TABLES) {
    const msg = "Failed to create card content, ext=ErrCode: 11310; ErrMsg: card table number over limit";
    return { status: 400, code: 230099, msg };
  }
  return null;
}

/** Card JSON 2.0 has no "action" module; a button's callback is a behavior with an object value. */
function buttonProblem(elements: unknown[]): string | undefined {
  for (const element of elements as Array<Record<string, unknown>>) {
    if (element.tag === "action") return "the action element is not supported in card JSON 2.0";
    if (element.tag === "column_set") {
      const columns = Array.isArray(element.columns) ? (element.columns as Array<{ elements?: unknown[] }>) : [];
      const problem = buttonProblem(columns.flatMap((column) => column.elements ?? []));
      if (problem) return problem;
    }
    if (element.tag === "button") {
      const behaviors = Array.isArray(element.behaviors) ? (element.behaviors as Array<{ type?: unknown; value?: unknown }>) : [];
      if (!isRecord(element.text) || behaviors.some((b) => b.type === "callback" && !isRecord(b.value))) return "button text or callback value";
    }
  }
  return undefined;
}

/** The callback buttons of a card JSON 2.0 (in its elements and column sets): label and value. */
export function cardButtons(card: Record<string, unknown>): Array<{ label: string; value: Record<string, unknown> }> {
  const walk = (elements: unknown[]): Array<{ label: string; value: Record<string, unknown> }> =>
    (elements as Array<Record<string, unknown>>).flatMap((element) => {
      if (element.tag === "column_set") return walk(((element.columns ?? []) as Array<{ elements?: unknown[] }>).flatMap((c) => c.elements ?? []));
      if (element.tag !== "button") return [];
      const callback = ((element.behaviors ?? []) as Array<{ type?: unknown; value?: unknown }>).find((b) => b.type === "callback");
      const text = element.text as { content?: unknown } | undefined;
      return callback && isRecord(callback.value) ? [{ label: String(text?.content), value: callback.value }] : [];
    });
  const body = isRecord(card.body) ? card.body : {};
  return walk(Array.isArray(body.elements) ? body.elements : []);
}

/** A Markdown table starts where a header row is followed by a |---| separator row. */
export function countTables(markdown: string): number {
  const lines = markdown.split("\n");
  return lines.filter((line, i) => i > 0 && /^\s*\|?\s*:?-{3,}/.test(line) && lines[i - 1]!.includes("|")).length;
}

function tooLong(): Refusal {
  return { status: 400, code: 230025, msg: "The length of the message content reaches its limit." };
}

function isPost(value: unknown): boolean {
  const isParagraph = (p: unknown) => Array.isArray(p) && p.every((el) => isRecord(el) && typeof el.tag === "string");
  return isRecord(value) && Array.isArray(value.content) && value.content.every(isParagraph);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
