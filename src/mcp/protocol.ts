/** The two requests the gateway makes of a connected server: what it offers, and a tool call. */
import { describeError, McpCallError } from "./errors.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolDefinition, ServerDefinition } from "./definitions.js";
import { convertResult, type ToolCallResult } from "./results.js";

/** Every tool (all pages) and the handshake's name, version and instructions. */
export async function fetchDefinition(client: Client, id: string, timeoutMs: number): Promise<ServerDefinition> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    for (const tool of page.tools) {
      tools.push({
        name: tool.name,
        ...(tool.title ? { title: tool.title } : {}),
        description: tool.description ?? "",
        inputSchema: tool.inputSchema as Record<string, unknown>,
      });
    }
    cursor = page.nextCursor;
  } while (cursor);
  const info = client.getServerVersion();
  return {
    id,
    serverName: info?.title ?? info?.name ?? id,
    serverVersion: info?.version ?? "",
    instructions: client.getInstructions() ?? "",
    tools,
    fetchedAt: new Date().toISOString(),
  };
}

export interface CallOptions {
  timeoutMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
}

export async function callTool(client: Client, tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<ToolCallResult> {
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
      timeout: opts.timeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
    })) as CallToolResult;
  } catch (err) {
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      throw new McpCallError(`the tool "${tool}" did not answer within ${opts.timeoutMs} ms`, "timeout");
    }
    // An McpError is the server's own answer (or the SDK's word that the connection closed); anything else
    // (a refused or reset HTTP request) means the session is no longer there.
    const lost = !(err instanceof McpError) || err.code === ErrorCode.ConnectionClosed;
    throw new McpCallError(`the call to "${tool}" failed: ${describeError(err)}`, "failed", lost);
  }
  return convertResult(result, opts.maxOutputChars);
}
