/**
 * The fetch every request to a remote MCP server and its authorization server goes through: the address guard
 * refuses private addresses, except those the operator allowed (web.allowPrivate) and the configured servers' own
 * host:port (configuring a server's URL is the operator allowing it). An authorization server that a server's
 * metadata points to on a private address is refused unless allowed.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AddressGuard } from "../infra/net/address-guard.js";
import { fetchThrough, guardedAgent } from "../infra/net/guarded-agent.js";
import { isStdio, type McpConfig } from "./config.js";

export function mcpFetch(config: McpConfig, allowPrivate: readonly string[]): FetchLike {
  const own = Object.values(config.servers).flatMap((server) => {
    if (isStdio(server)) return [];
    const url = new URL(server.url);
    return [`${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`];
  });
  return fetchThrough(guardedAgent(new AddressGuard({ allowPrivate: [...allowPrivate, ...own] }), config.connectTimeoutMs));
}
