/**
 * The one JSON shape every HTTP error of the gateway has: `{ error: <code>, message, ...details }`. The console's
 * codes and the values they carry are listed in core/api-errors.ts.
 */
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ConsoleError } from "../../core/api-errors.js";

export function jsonError(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): Response {
  return c.json({ error: code, message, ...details }, status);
}

/** A short id shown to the user and logged with the error, to find one in the other. */
export function newErrorId(): string {
  return randomBytes(4).toString("hex");
}

/** An error the console shows in its own words: the values its code carries go beside the English message. */
export function consoleError(
  c: Context,
  status: ContentfulStatusCode,
  error: ConsoleError,
  message: string,
  details: Record<string, unknown> = {},
): Response {
  const { code, ...values } = error;
  return jsonError(c, status, code, message, { ...details, ...values });
}
