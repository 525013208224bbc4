/**
 * The `mcp` section of the configuration: the MCP servers to connect to, and the limits of every call.
 * A server is either a local program spoken to over stdio (`command`) or a remote one over HTTP (`url`).
 */
import { z } from "zod";
import { RISK_CLASSES } from "../core/tools.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Ids name folders in the data dir and appear in prompts: keep them plain. */
export const SERVER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const common = {
  /** The name shown to the model; the id when absent. */
  name: z.string().min(1).optional(),
  enabled: z.boolean().default(true),
  /**
   * The permission a sender needs to see and call this server's tools. Default exec: an MCP server is code the
   * bot runs or a service it acts on.
   */
  risk: z.enum(RISK_CLASSES).default("exec"),
  /** Only senders the access policy grants "admin" (the owners, by default) see and call it. */
  ownersOnly: z.boolean().default(false),
  /** Overrides mcp.callTimeoutMs for this server's tools. */
  timeoutMs: z.number().int().positive().optional(),
};

const stdioServerSchema = z.strictObject({
  ...common,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Added to a minimal environment (PATH, HOME...); the gateway's own secrets are not passed on. */
  env: z.record(z.string().regex(ENV_NAME, "must be an environment variable name"), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  /** Run the server inside the sandbox; the server is refused when no sandbox is available. */
  sandbox: z.boolean().default(false),
});

const httpServerSchema = z.strictObject({
  ...common,
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string().min(1), z.string()).default({}),
  /** auto: Streamable HTTP, falling back to the older HTTP+SSE transport when the server only speaks that. */
  transport: z.enum(["auto", "streamable-http", "sse"]).default("auto"),
});

export const mcpServerSchema = z.union([stdioServerSchema, httpServerSchema], {
  error: "an MCP server needs either `command` (stdio) or `url` (HTTP), with only that transport's settings",
});

export const mcpConfigSchema = z
  .strictObject({
    servers: z
      .record(z.string(), mcpServerSchema)
      // Checked here rather than on the key schema, whose failure zod reports only as "Invalid key in record".
      .superRefine((servers, ctx) => {
        for (const id of Object.keys(servers)) {
          if (!SERVER_ID.test(id)) ctx.addIssue({ code: "custom", path: [id], message: "server ids are lowercase letters, digits, - and _" });
        }
      })
      .default({}),
    /** Time limit of one tool call, in milliseconds. */
    callTimeoutMs: z.number().int().positive().default(60_000),
    /** Time limit of connecting (start-up, handshake, listing tools), in milliseconds. */
    connectTimeoutMs: z.number().int().positive().default(30_000),
    /** What a tool result keeps of its text, in characters; the rest is dropped and marked. */
    maxOutputChars: z.number().int().min(1_000).default(50_000),
    /** Reconnect delays after a server fails: from the first to the longest, doubling each time. */
    reconnectInitialMs: z.number().int().positive().default(1_000),
    reconnectMaxMs: z.number().int().positive().default(300_000),
    /**
     * Where authorization servers send the owner's browser back after an OAuth login: the gateway's own
     * /mcp/oauth/callback. Default: http://127.0.0.1:<http.port>/mcp/oauth/callback; set it when the gateway is
     * reached under another address. A login started from the console uses the console's address.
     */
    oauthRedirectUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    /** Tokens the "MCP Servers" prompt section may take before doctor and the start log warn (never truncated). */
    promptTokenBudget: z.number().int().positive().default(4_000),
  })
  .prefault({});

export type McpConfig = z.output<typeof mcpConfigSchema>;
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type StdioServerConfig = z.output<typeof stdioServerSchema>;
export type HttpServerConfig = z.output<typeof httpServerSchema>;

export function isStdio(server: McpServerConfig): server is StdioServerConfig {
  return "command" in server;
}

/** Values in servers' env and headers: API keys and tokens, kept out of logs, replies and tool results. */
export function mcpSecrets(config: McpConfig): string[] {
  return Object.values(config.servers).flatMap((server) =>
    Object.values(isStdio(server) ? server.env : server.headers).map(secretPart),
  );
}

/** "Bearer abc123" holds the secret "abc123": the scheme word alone is not worth hiding. */
function secretPart(value: string): string {
  const match = /^(?:Bearer|Basic|Token)\s+(\S+)$/i.exec(value);
  return match?.[1] ?? value;
}
