/**
 * A server error in the page's language. The server sends a code from src/core/api-errors.ts with the values its
 * English message carries; the page shows its catalog's `errors.server.<code>` with those values. A code the page
 * does not know (a newer gateway) or an error without the values it needs (an older one) shows the server's message.
 */
import { errorValueNames, type ErrorTable } from "../../src/core/api-errors.js";

export type Translate = (key: string, values?: Record<string, unknown>) => string;

/** `error` holds the code's values by name (the HTTP body or the socket frame); `message` is the English text. */
export function serverErrorText(t: Translate, table: ErrorTable, code: unknown, message: string, error: Readonly<Record<string, unknown>>): string {
  const names = errorValueNames(table, code);
  if (names === null) return message;
  const values: Record<string, string | number> = {};
  for (const name of names) {
    const value = error[name];
    if (typeof value !== "string" && typeof value !== "number") return message;
    values[name] = value;
  }
  return t(`errors.server.${code as string}`, values);
}
