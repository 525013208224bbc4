/**
 * Bearer-token checks for HTTP requests and WebSocket upgrades. Browsers cannot set headers on a
 * WebSocket, so an upgrade may carry the token as the subprotocol `bearer.<token>` instead.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const WS_TOKEN_PROTOCOL_PREFIX = "bearer.";

/** Constant-time: both sides are hashed first, so neither their content nor their length leaks through timing. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

/** The `bearer.<token>` entry among the subprotocols a WebSocket client offers. */
export function tokenProtocol(protocols: Iterable<string>): string | undefined {
  for (const p of protocols) if (p.startsWith(WS_TOKEN_PROTOCOL_PREFIX)) return p;
  return undefined;
}

export function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers["sec-websocket-protocol"] ?? "";
  return header
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** The token an upgrade request carries: the subprotocol first, then an Authorization header. */
export function upgradeToken(req: IncomingMessage): string | undefined {
  const protocol = tokenProtocol(offeredProtocols(req));
  if (protocol !== undefined) return protocol.slice(WS_TOKEN_PROTOCOL_PREFIX.length);
  return bearerToken(req.headers.authorization);
}
