/**
 * An undici Agent whose every connection goes through the AddressGuard: the host is resolved and checked when the
 * socket is opened, and the socket is opened to that checked address (TLS still verifies the original name).
 * Being the connector, it runs for every hop, every retry and every pooled connection, not just the first URL.
 */
import { isIP } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import type { AddressGuard } from "./address-guard.js";

export function guardedAgent(guard: AddressGuard, connectTimeoutMs: number): Agent {
  const base = buildConnector({ timeout: connectTimeoutMs });
  return new Agent({
    connect: (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === "https:" ? 443 : 80);
      guard.resolve(opts.hostname, port).then(
        ({ address }) => {
          const servername = opts.servername ?? (isIP(opts.hostname.replace(/^\[|\]$/g, "")) ? undefined : opts.hostname);
          base({ ...opts, hostname: address, ...(servername ? { servername } : {}) }, callback);
        },
        (err: Error) => callback(err, null),
      );
    },
  });
}

/** fetch() whose connections go through `agent` (undici's own fetch: the global one ignores a dispatcher of another undici). */
export function fetchThrough(agent: Agent): typeof fetch {
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as unknown as typeof fetch;
}
