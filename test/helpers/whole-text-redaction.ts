import { redactSpans, secretSpans } from "../../src/infra/config/secrets.js";

/**
 * What a live reply may show of `text`, done the slow way over the whole text: redacted, up to a tail that a
 * secret starts with (line breaks inside it aside) and a match that tail begins in. The reference for tests and
 * the bench.
 */
export function wholeTextView(text: string, secrets: readonly string[]): string {
  const spans = secretSpans(text, secrets);
  const forms = secrets.map((secret) => secret.replace(/[\r\n]/g, ""));
  const longest = Math.max(0, ...forms.map((form) => form.length));
  let cut = text.length;
  // Each start of the text's end (line-break characters aside, as the search skips them) that begins a secret.
  let rest = "";
  for (let i = text.length - 1; i >= 0 && rest.length < longest; i--) {
    if (text[i] === "\n" || text[i] === "\r") continue;
    rest = text[i] + rest;
    if (forms.some((form) => rest.length < form.length && form.startsWith(rest))) cut = i;
  }
  const crossing = spans.find(([start, end]) => start < cut && cut < end);
  if (crossing) cut = crossing[0];
  return redactSpans(text.slice(0, cut), spans.filter(([, end]) => end <= cut));
}
