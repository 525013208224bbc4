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

/** The secret values in force: the settings at `secretPaths`, and the password of a store URL. */
export function collectSecretsAt(config: CoreConfig, secretPaths: readonly string[], more: readonly string[] = []): string[] {
  const values = more.filter((v) => v.length >= 4);
  for (const path of secretPaths) {
    const v = getPath(config, path);
    if (typeof v === "string" && v.length >= 4) values.push(v);
  }
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

const patterns = new WeakMap<readonly string[], RegExp>();

/**
 * One pattern for all the forms, longest first. A line break may sit between any two characters: tools such as
 * base64 wrap their output.
 */
function patternOf(secrets: readonly string[]): RegExp {
  let pattern = patterns.get(secrets);
  if (!pattern) {
    // An empty secret would match everywhere (collectSecretsAt keeps none under 4 characters); no secret, nowhere.
    const alternatives = secrets.filter((s) => s !== "").map((s) => [...s].map((ch) => ch.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("(?:\\r?\\n)?"));
    pattern = new RegExp(alternatives.length > 0 ? alternatives.join("|") : "(?!)", "g");
    patterns.set(secrets, pattern);
  }
  return pattern;
}

/** Where each secret form occurs in `text`, as redactText finds them (start and end offsets, in order). */
export function secretSpans(text: string, secrets: readonly string[]): Array<[number, number]> {
  if (secrets.length === 0) return [];
  // exec on the shared pattern: matchAll would copy it, and compiling this pattern costs more than a short scan.
  const pattern = patternOf(secrets);
  const spans: Array<[number, number]> = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) spans.push([match.index, pattern.lastIndex]);
  return spans;
}

export function redactText(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  return text.replace(patternOf(secrets), REDACTED);
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
