/** A short-lived session with one server, for the CLI and doctor: connect, do one thing, close (killing a child). */
import { describeError } from "./errors.js";
import type { McpConfig, McpServerConfig } from "./config.js";
import type { ServerDefinition } from "./definitions.js";
import { fetchDefinition } from "./protocol.js";
import { openSession, type OpenOptions, type OpenSession, type WrapCommand } from "./transport.js";

export interface OneShotOptions {
  id: string;
  server: McpServerConfig;
  limits: McpConfig;
  wrapCommand?: WrapCommand;
  authProvider?: OpenOptions["authProvider"];
  fetch?: OpenOptions["fetch"];
}

/** Runs `work` with a live session and its freshly fetched definition; always closes the session. */
export async function withSession<T>(opts: OneShotOptions, work: (session: OpenSession, definition: ServerDefinition) => Promise<T>): Promise<T> {
  const stderr: string[] = [];
  let session: OpenSession;
  try {
    session = await openSession(opts.server, {
      id: opts.id,
      timeoutMs: opts.limits.connectTimeoutMs,
      wrapCommand: opts.wrapCommand,
      onStderr: (line) => stderr.push(line),
      ...(opts.authProvider ? { authProvider: opts.authProvider } : {}),
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  } catch (err) {
    const tail = stderr.slice(-3).join(" / ");
    throw new Error(`${describeError(err)}${tail ? ` (stderr: ${tail})` : ""}`, { cause: err });
  }
  try {
    return await work(session, await fetchDefinition(session.client, opts.id, opts.limits.connectTimeoutMs));
  } finally {
    await session.client.close().catch(() => undefined);
  }
}
