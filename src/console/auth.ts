/**
 * Who may use the console: with a token configured, whoever sends it (Authorization: Bearer); without one, only
 * a browser on this machine (a loopback peer address), since then nothing else tells an owner from a passer-by.
 * A request relayed by a reverse proxy also comes from loopback, so one carrying forwarding headers is refused.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { MiddlewareHandler } from "hono";
import { bearerToken, tokenMatches } from "../infra/http/auth.js";
import { consoleError } from "../infra/http/errors.js";

const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

export function consoleAuth(token: string | null): MiddlewareHandler {
  return async (c, next) => {
    if (token !== null) {
      if (!tokenMatches(bearerToken(c.req.header("authorization")), token)) {
        c.header("WWW-Authenticate", "Bearer");
        return consoleError(c, 401, { code: "unauthorized" }, "The console needs the gateway's token (Authorization: Bearer <token>)");
      }
    } else if (!isLoopback(getConnInfo(c).remote.address) || FORWARDING_HEADERS.some((h) => c.req.header(h) !== undefined)) {
      return consoleError(c, 403, { code: "forbidden" }, "Without http.token the console answers only to a browser on this machine, not through a proxy");
    }
    await next();
  };
}

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}
