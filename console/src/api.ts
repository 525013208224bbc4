/** Calls to /api/v1/console with the owner's token (kept in this browser); a 401 asks for the token again. */
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
  if (res.status === 401 || res.status === 403) throw new AuthNeeded(((await res.json().catch(() => null)) as { error?: string } | null)?.error ?? t("errors.notAllowed"));
  const json = (await res.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!res.ok) throw new Error(json?.error ?? t("errors.http", { method, path, status: res.status }));
  return json as T;
}

export const api = {
  get: <T>(path: string) => call<T>("GET", path),
  post: <T>(path: string, body?: BodyInit | object) => call<T>("POST", path, body ?? {}),
  put: <T>(path: string, body: object) => call<T>("PUT", path, body),
};
