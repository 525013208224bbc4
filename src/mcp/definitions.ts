/**
 * The last known definitions of each MCP server, kept in `<dataDir>/mcps/<id>/`, one file per part so each can be read alone:
 * SERVER_METADATA.json, INSTRUCTIONS.md and tools/<tool>.json. The prompt is built from them while a server is
 * still connecting or reconnecting, so the model's view does not flicker with the connection.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  /** The tool's JSON Schema for its arguments, as the server sent it. */
  inputSchema: Record<string, unknown>;
}

export interface McpResourceDefinition {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export interface McpPromptDefinition {
  name: string;
  description?: string;
  arguments: Array<{ name: string; description?: string; required?: boolean }>;
}

export interface ServerDefinition {
  id: string;
  /** What the server calls itself, from its handshake. */
  serverName: string;
  serverVersion: string;
  /** The server's own usage instructions (from its handshake); "" when it sent none. */
  instructions: string;
  tools: McpToolDefinition[];
  /** What it offers to read (resources) and its prompt templates; absent when it offers none. */
  resources?: McpResourceDefinition[];
  prompts?: McpPromptDefinition[];
  /** When these were fetched from the live server (ISO). */
  fetchedAt: string;
}

const metadataSchema = z.object({
  id: z.string(),
  serverName: z.string(),
  serverVersion: z.string(),
  fetchedAt: z.string(),
  tools: z.array(z.string()),
  resources: z.array(z.object({ uri: z.string(), name: z.string(), description: z.string().optional(), mimeType: z.string().optional() })).optional(),
  prompts: z
    .array(
      z.object({
        name: z.string(),
        description: z.string().optional(),
        arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() })),
      }),
    )
    .optional(),
});

const toolSchema = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});

/** Where the `mcps/<id>/` folders live. */
export function mcpDefinitionsDir(dataDir: string): string {
  return join(dataDir, "mcps");
}

export const METADATA_FILE = "SERVER_METADATA.json";
export const INSTRUCTIONS_FILE = "INSTRUCTIONS.md";

/** A tool name as a file name: MCP names are mostly safe already; anything else is percent-encoded. */
function toolFileName(name: string): string {
  return `${encodeURIComponent(name).replaceAll("*", "%2A")}.json`;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const staging = `${path}.tmp-${process.pid}`;
  await writeFile(staging, text);
  await rename(staging, path);
}

export class DefinitionStore {
  constructor(private readonly root: string) {}

  dirOf(id: string): string {
    return join(this.root, id);
  }

  /**
   * Writes tool files first, then the metadata that lists them, then removes tools that are gone; each file is
   * replaced by a rename. A reader (or a crash) at any instant finds a complete definition, old or new.
   */
  async save(definition: ServerDefinition): Promise<void> {
    const dir = this.dirOf(definition.id);
    await mkdir(join(dir, "tools"), { recursive: true });
    const { instructions, tools, ...meta } = definition;
    for (const tool of tools) await writeAtomically(join(dir, "tools", toolFileName(tool.name)), `${JSON.stringify(tool, null, 2)}\n`);
    await writeAtomically(join(dir, INSTRUCTIONS_FILE), instructions);
    await writeAtomically(join(dir, METADATA_FILE), `${JSON.stringify({ ...meta, tools: tools.map((t) => t.name) }, null, 2)}\n`);
    const current = new Set(tools.map((t) => toolFileName(t.name)));
    for (const file of await readdir(join(dir, "tools"))) {
      if (!current.has(file)) await rm(join(dir, "tools", file), { force: true });
    }
  }

  /** The saved definition, or undefined when there is none or it cannot be read (it is then refetched). */
  async load(id: string): Promise<ServerDefinition | undefined> {
    const dir = this.dirOf(id);
    try {
      const meta = metadataSchema.parse(JSON.parse(await readFile(join(dir, METADATA_FILE), "utf8")));
      const instructions = await readFile(join(dir, INSTRUCTIONS_FILE), "utf8").catch(() => "");
      const files = new Set(await readdir(join(dir, "tools")));
      const tools: McpToolDefinition[] = [];
      for (const name of meta.tools) {
        const file = toolFileName(name);
        if (!files.has(file)) return undefined;
        tools.push(toolSchema.parse(JSON.parse(await readFile(join(dir, "tools", file), "utf8"))));
      }
      const { resources, prompts } = meta;
      return {
        id: meta.id,
        serverName: meta.serverName,
        serverVersion: meta.serverVersion,
        fetchedAt: meta.fetchedAt,
        instructions,
        tools,
        ...(resources ? { resources } : {}),
        ...(prompts ? { prompts } : {}),
      };
    } catch {
      return undefined;
    }
  }
}
