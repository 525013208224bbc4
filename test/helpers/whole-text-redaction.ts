import { redactText } from "../../src/infra/config/secrets.js";

/**
 * What a live reply may show of `text`, done the slow way over the whole text (as the agent did before
 * GrowingRedaction): redacted, less a tail that a secret starts with. The reference for tests and the bench.
 */
export function wholeTextView(text: string, secrets: readonly string[]): string {
  const redacted = redactText(text, secrets);
  let cut = redacted.length;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, redacted.length); n > 0; n--) {
      if (redacted.endsWith(secret.slice(0, n))) {
        cut = Math.min(cut, redacted.length - n);
        break;
      }
    }
  }
  return redacted.slice(0, cut);
}
