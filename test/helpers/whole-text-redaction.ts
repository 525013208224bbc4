import { redactText } from "../../src/infra/config/secrets.js";

/**
 * What a live reply may show of `text`, done the slow way over the whole text (as the agent did before
 * GrowingRedaction): redacted, less a tail that a secret starts with, line breaks inside it aside. The reference
 * for tests and the bench.
 */
export function wholeTextView(text: string, secrets: readonly string[]): string {
  const redacted = redactText(text, secrets);
  const forms = secrets.map((secret) => secret.replace(/[\r\n]/g, ""));
  const longest = Math.max(0, ...forms.map((form) => form.length));
  let cut = redacted.length;
  // Each start of the text's end (line-break characters aside, as the search skips them) that begins a secret.
  let rest = "";
  for (let i = redacted.length - 1; i >= 0 && rest.length < longest; i--) {
    if (redacted[i] === "\n" || redacted[i] === "\r") continue;
    rest = redacted[i] + rest;
    if (forms.some((form) => rest.length < form.length && form.startsWith(rest))) cut = i;
  }
  return redacted.slice(0, cut);
}
