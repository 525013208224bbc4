/** The two requests the gateway makes of a connected server: what it offers, and a tool call. */
import { describeError, McpCallError } from "./errors.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpPromptDefinition, McpResourceDefinition, McpToolDefinition, ServerDefinition } from "./definitions.js";
import { convertResult, type ToolCallResult } from "./results.js";

/** Every page of a paginated list. */
async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

const cursorParams = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });

async function listResources(client: Client, timeout: number): Promise<McpResourceDefinition[]> {
  return allPages(async (cursor) => {
    const page = await client.listResources(cursorParams(cursor), { timeout });
    const items = page.resources.map((r) => ({
      uri: r.uri,
      name: r.title ?? r.name,
      ...(r.description ? { description: r.description } : {}),
      ...(r.mimeType ? { mimeType: r.mimeType } : {}),
    }));
    return { items, nextCursor: page.nextCursor };
  });
}

async function listPrompts(client: Client, timeout: number): Promise<McpPromptDefinition[]> {
  return allPages(async (cursor) => {
    const page = await client.listPrompts(cursorParams(cursor), { timeout });
    const items = page.prompts.map((p) => ({
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })),
    }));
    return { items, nextCursor: page.nextCursor };
  });
}

/** Every tool (all pages) and the handshake's name, version and instructions. */
export async function fetchDefinition(client: Client, id: string, timeoutMs: number): Promise<ServerDefinition> {
  const tools = await allPages<McpToolDefinition>(async (cursor) => {
    const page = await client.listTools(cursorParams(cursor), { timeout: timeoutMs });
    const items = page.tools.map((tool) => ({
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description ?? "",
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }));
    return { items, nextCursor: page.nextCursor };
  });
  const capabilities = client.getServerCapabilities();
  const resources = capabilities?.resources ? await listResources(client, timeoutMs) : [];
  const prompts = capabilities?.prompts ? await listPrompts(client, timeoutMs) : [];
  const info = client.getServerVersion();
  return {
    id,
    serverName: info?.title ?? info?.name ?? id,
    serverVersion: info?.version ?? "",
    instructions: client.getInstructions() ?? "",
    tools,
    ...(resources.length > 0 ? { resources } : {}),
    ...(prompts.length > 0 ? { prompts } : {}),
    fetchedAt: new Date().toISOString(),
  };
}

export interface CallOptions {
  timeoutMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
}

/** One request, its failures as McpCallError; `what` names it in messages ('the tool "echo"'). */
async function request<T>(what: string, opts: CallOptions, send: (options: { timeout: number; signal?: AbortSignal }) => Promise<T>): Promise<T> {
  try {
    return await send({ timeout: opts.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
  } catch (err) {
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      throw new McpCallError(`${what} did not answer within ${opts.timeoutMs} ms`, "timeout");
    }
    // An McpError is the server's own answer (or the SDK's word that the connection closed); anything else
    // (a refused or reset HTTP request) means the session is no longer there.
    const lost = !(err instanceof McpError) || err.code === ErrorCode.ConnectionClosed;
    throw new McpCallError(`the request for ${what} failed: ${describeError(err)}`, "failed", lost);
  }
}

export async function callTool(client: Client, tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<ToolCallResult> {
  const result = await request(`the tool "${tool}"`, opts, (options) => client.callTool({ name: tool, arguments: args }, CallToolResultSchema, options));
  return convertResult(result as CallToolResult, opts.maxOutputChars);
}

/** A resource's contents as a result (text as text, images as images, other binary data as a note), capped. */
export async function readResource(client: Client, uri: string, opts: CallOptions): Promise<ToolCallResult> {
  const result = await request(`the resource "${uri}"`, opts, (options) => client.readResource({ uri }, options));
  return convertResult({ content: result.contents.map((resource) => ({ type: "resource", resource })) }, opts.maxOutputChars);
}

/** A prompt's messages, each prefixed with its role, capped. */
export async function getPrompt(client: Client, name: string, args: Record<string, string>, opts: CallOptions): Promise<ToolCallResult> {
  const result = await request(`the prompt "${name}"`, opts, (options) => client.getPrompt({ name, arguments: args }, options));
  const content: CallToolResult["content"] = [];
  if (result.description) content.push({ type: "text", text: `(${result.description})` });
  for (const message of result.messages) content.push({ type: "text", text: `[${message.role}]` }, message.content);
  return convertResult({ content }, opts.maxOutputChars);
}
