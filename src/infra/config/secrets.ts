/** Finding the configured secrets and keeping them out of everything the gateway prints or sends. */
import type { CoreConfig } from "./core-schema.js";

export const REDACTED = "[REDACTED]";

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The secret values in force: the settings at `secretPaths`, each model entry's key, and the password of a store URL. */
export function collectSecretsAt(config: CoreConfig, secretPaths: readonly string[], more: readonly string[] = []): string[] {
  const values = more.filter((v) => v.length >= 4);
  for (const path of secretPaths) {
    const v = getPath(config, path);
    if (typeof v === "string" && v.length >= 4) values.push(v);
  }
  for (const entry of Object.values(config.llm.models)) if (entry.apiKey !== null && entry.apiKey.length >= 4) values.push(entry.apiKey);
  const storePassword = passwordOf(config.store.url);
  if (storePassword) values.push(storePassword);
  // Longest first, so a secret containing another is replaced whole.
  return [...new Set(values.flatMap(secretForms))].sort((a, b) => b.length - a.length);
}

/** Shorter encoded pieces are left alone: they would match innocent text. */
const MIN_FORM_LENGTH = 8;

/**
 * The secret as it is and as code that got hold of it would smuggle it out: reversed, hex (either case), and the
 * part of its base64 and base64url encoding that is the same wherever it starts in a longer encoded text (each of
 * the three alignments; the characters shared with neighbouring bytes are left out).
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const hex = bytes.toString("hex");
  const forms = [secret, [...secret].reverse().join(""), hex, hex.toUpperCase()];
  for (let shift = 0; shift < 3; shift++) {
    const shifted = Buffer.concat([Buffer.alloc(shift), bytes]);
    const stable = shifted.toString("base64").slice(Math.ceil((shift * 4) / 3), Math.floor(shifted.length / 3) * 4);
    forms.push(stable, stable.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return [...new Set(forms)].filter((form) => form === secret || form.length >= MIN_FORM_LENGTH);
}

function passwordOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password.length >= 4 ? password : undefined;
  } catch {
    return undefined;
  }
}

const searchedBySecrets = new WeakMap<readonly string[], readonly string[]>();

/**
 * The forms as they are searched for, in text without line-break characters (see secretSpans): without them too,
 * and none empty, which would match everywhere (collectSecretsAt keeps none under 4 characters). Made once per set.
 */
export function searchedForms(secrets: readonly string[]): readonly string[] {
  let forms = searchedBySecrets.get(secrets);
  if (!forms) {
    forms = secrets.map(removeLineBreaks).filter((s) => s !== "");
    searchedBySecrets.set(secrets, forms);
  }
  return forms;
}

const patterns = new WeakMap<readonly string[], RegExp>();

/** One pattern for all the forms, longest first; no secret, nowhere. */
function patternOf(secrets: readonly string[]): RegExp {
  let pattern = patterns.get(secrets);
  if (!pattern) {
    const alternatives = searchedForms(secrets).map((s) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"));
    pattern = new RegExp(alternatives.length > 0 ? alternatives.join("|") : "(?!)", "g");
    patterns.set(secrets, pattern);
  }
  return pattern;
}

export type SecretSpan = [start: number, end: number];

/**
 * Where each secret form occurs in `text`, as redactText finds them (start and end offsets, in order). Line-break
 * characters ("\n", "\r") may sit anywhere inside a form, any number of them: tools such as base64 wrap their
 * output. They are taken out of the text (and of the secrets) before the search rather than written into the
 * pattern between every two characters, which made V8 spend ~20 ms compiling it (on the first reply after start)
 * against ~0.1 ms.
 */
export function secretSpans(text: string, secrets: readonly string[]): SecretSpan[] {
  if (secrets.length === 0) return [];
  const { joined, original } = withoutLineBreaks(text);
  // exec on the shared pattern: matchAll would copy it.
  const pattern = patternOf(secrets);
  const spans: SecretSpan[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(joined); match !== null; match = pattern.exec(joined)) {
    spans.push([original(match.index), original(pattern.lastIndex - 1) + 1]);
  }
  return spans;
}

/** `text` with each span replaced by REDACTED. */
export function redactSpans(text: string, spans: readonly SecretSpan[]): string {
  if (spans.length === 0) return text;
  let out = "";
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

const LINE_BREAKS = /[\r\n]+/g;

/** `text` without its line-break characters, and where a character of that text is in `text`. */
function withoutLineBreaks(text: string): { joined: string; original: (offset: number) => number } {
  if (!hasLineBreak(text)) return { joined: text, original: (offset) => offset };
  // Pieces between runs of line-break characters: where each starts in the joined text and in `text`.
  const joinedStarts = [0];
  const textStarts = [0];
  let joined = "";
  let from = 0;
  for (let at = 0; at < text.length; at++) {
    if (!isLineBreak(text.charCodeAt(at))) continue;
    joined += text.slice(from, at);
    from = at + 1;
    while (from < text.length && isLineBreak(text.charCodeAt(from))) from += 1;
    joinedStarts.push(joined.length);
    textStarts.push(from);
    at = from;
  }
  joined += text.slice(from);
  const original = (offset: number): number => {
    // The last piece starting at or before `offset` holds it (earlier empty pieces start there too).
    let low = 0;
    let high = joinedStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (joinedStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return textStarts[low]! + offset - joinedStarts[low]!;
  };
  return { joined, original };
}

/** `text` without its line-break characters, as the search sees it. */
export function removeLineBreaks(text: string): string {
  return text.replace(LINE_BREAKS, "");
}

function hasLineBreak(text: string): boolean {
  return text.includes("\n") || text.includes("\r");
}

/** "\n" or "\r" (by character code): what the secrets search skips. */
export function isLineBreak(code: number): boolean {
  return code === 10 || code === 13;
}

export function redactText(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  if (!hasLineBreak(text)) return text.replace(patternOf(secrets), REDACTED);
  return redactSpans(text, secretSpans(text, secrets));
}

/** Deep copy of `value` with every secret replaced; Errors keep their name, message and stack. */
export function redactSecrets(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0 || depth > 8) return value;
  if (typeof value === "string") return redactText(value, secrets);
  if (value instanceof Error) {
    const copy = new Error(redactText(value.message, secrets));
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : redactText(value.stack, secrets);
    for (const [k, v] of Object.entries(value)) (copy as unknown as Record<string, unknown>)[k] = redactSecrets(v, secrets, depth + 1);
    if (value.cause !== undefined) copy.cause = redactSecrets(value.cause, secrets, depth + 1);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, secrets, depth + 1));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v, secrets, depth + 1)]));
  }
  return value;
}
