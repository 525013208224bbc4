/** Errors of the MCP engine, kept free of the SDK so that importing them costs nothing. */

/** One line saying why something failed, with the cause a network error hides ("fetch failed" alone says little). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && !err.message.includes(cause) ? `${err.message} (${cause})` : err.message;
}

/** Thrown when a call cannot complete: the server timed out, went away, or refused the request. */
export class McpCallError extends Error {
  override name = "McpCallError";
  constructor(
    message: string,
    readonly reason: "timeout" | "failed",
    /** The transport failed (the server did not answer at all): the session is gone and must be reopened. */
    readonly sessionLost = false,
  ) {
    super(message);
  }
}

/** A remote server wants an OAuth login that no owner has done yet (or that expired beyond refreshing). */
export class LoginRequiredError extends Error {
  override name = "LoginRequiredError";
  constructor(readonly serverId: string) {
    super(`the MCP server "${serverId}" needs an owner to log in first: run \`switchboard mcp login ${serverId}\` (or use the console's MCP page)`);
  }
}
