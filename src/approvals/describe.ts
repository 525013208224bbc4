/**
 * What an approval request shows: exactly what will run, one line per input field (the command line, the URL,
 * the skill, its script and arguments, the keys to type), with secrets blanked: the configured ones, and the
 * shapes secrets take in command lines and URLs (a bearer token, `password=...`, credentials in a URL).
 */
import { REDACTED, redactText } from "../infra/config/secrets.js";

/** Longest value shown per field; the request says when it was cut. */
const FIELD_CHARS = 3_000;

const SECRET_SHAPES: ReadonlyArray<[RegExp, string]> = [
  [/\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\b([\w-]*(?:api[_-]?key|token|secret|passw(?:or)?d|pwd|auth)[\w-]*)(\s*[=:]\s*|\s+)(["']?)[^\s"'&]+\3/gi, `$1$2$3${REDACTED}$3`],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/:@]+:[^\s/@]+@/gi, `$1${REDACTED}@`],
  [/\b(sk|pk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{10,}/g, REDACTED],
];

/** The call as the person approving it reads it: `tool` and each field, redacted. */
export function describeCall(tool: string, input: unknown, secrets: readonly string[]): string {
  const fields = input !== null && typeof input === "object" && !Array.isArray(input) ? Object.entries(input) : [["input", input] as const];
  const lines = fields.filter(([, value]) => value !== undefined).map(([name, value]) => `${name}: ${shown(value, secrets)}`);
  return [tool, ...lines].join("\n");
}

export function redactShapes(text: string, secrets: readonly string[]): string {
  let redacted = redactText(text, secrets);
  for (const [shape, replacement] of SECRET_SHAPES) redacted = redacted.replace(shape, replacement);
  return redacted;
}

function shown(value: unknown, secrets: readonly string[]): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const redacted = redactShapes(text, secrets);
  return redacted.length > FIELD_CHARS ? `${redacted.slice(0, FIELD_CHARS)}… (${redacted.length - FIELD_CHARS} more characters)` : redacted;
}
