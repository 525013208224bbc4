/**
 * Calls to /api/v1/console with the owner's token (kept in this browser); a 401 asks for the token again. A refusal
 * becomes an Error whose message is the server's error in the console's language.
 */
import { CONSOLE_ERRORS } from "../../src/core/api-errors.js";
import { serverErrorText } from "../i18n/server-errors";
import { t } from "./i18n";

const TOKEN_KEY = "switchboard.console.token";
const BASE = "/api/v1/console";

export class AuthNeeded extends Error {}

export const tokenStore = {
  get: (): string | null => localStorage.getItem(TOKEN_KEY),
  set: (token: string): void => localStorage.setItem(TOKEN_KEY, token),
  clear: (): void => localStorage.removeItem(TOKEN_KEY),
};

async function call<T>(method: string, path: string, body?: BodyInit | object): Promise<T> {
  const token = tokenStore.get();
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(BASE + path, { method, headers, body: payload, cache: "no-store" });
  const json = (await res.json().catch(() => null)) as unknown;
  if (res.status === 401 || res.status === 403) throw new AuthNeeded(problemOf(json, t("errors.notAllowed")));
  if (!res.ok) throw new Error(problemOf(json, t("errors.http", { method, path, status: res.status })));
  return json as T;
}

/** An error body (`{ error: code, message, ...values }`) in the console's words; `fallback` when there is none. */
function problemOf(json: unknown, fallback: string): string {
  if (typeof json !== "object" || json === null) return fallback;
  const body = json as Record<string, unknown>;
  const message = typeof body["message"] === "string" && body["message"] !== "" ? body["message"] : fallback;
  return serverErrorText(t, CONSOLE_ERRORS, body["error"], message, body);
}

export const api = {
  get: <T>(path: string) => call<T>("GET", path),
  post: <T>(path: string, body?: BodyInit | object) => call<T>("POST", path, body ?? {}),
  put: <T>(path: string, body: object) => call<T>("PUT", path, body),
};
