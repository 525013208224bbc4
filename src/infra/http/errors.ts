/** The one JSON shape every HTTP error of the gateway has: `{ error: <code>, message, ...details }`. */
import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

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
