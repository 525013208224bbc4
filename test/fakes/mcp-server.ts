/**
 * A small MCP server built with the official SDK, for the faults a real server can have. Run over stdio with
 * `node --import tsx test/fakes/mcp-server.ts [mode]`. Modes: "normal" (default), "exit-at-start" (writes a
 * reason to stderr and exits 3 before the handshake). Tools: add (works), hang (never answers), fail (answers
 * with isError), throw (the handler throws), crash (the process exits mid-call), grow (adds a tool, which sends
 * notifications/tools/list_changed), secret_env (returns the FAKE_MCP_TOKEN it was given).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const mode = process.argv[2] ?? "normal";
if (mode === "exit-at-start") {
  process.stderr.write("fake MCP server: missing FAKE_API_KEY, exiting\n");
  process.exit(3);
}

const server = new McpServer(
  { name: "fake-faults", version: "1.2.3" },
  { instructions: "Use add for sums. The other tools misbehave on purpose.", capabilities: { tools: { listChanged: true } } },
);

server.registerTool(
  "add",
  { description: "Adds two numbers.\nReturns the sum as text.", inputSchema: { a: z.number().describe("First addend"), b: z.number().optional() } },
  async ({ a, b }) => ({ content: [{ type: "text", text: String(a + (b ?? 0)) }] }),
);
server.registerTool("hang", { description: "Never answers." }, () => new Promise(() => undefined));
server.registerTool("fail", { description: "Answers with an error result." }, async () => ({
  isError: true,
  content: [{ type: "text", text: "the backend said no" }],
}));
server.registerTool("throw", { description: "Its handler throws." }, async () => {
  throw new Error("handler blew up");
});
server.registerTool("crash", { description: "Exits the process mid-call." }, async () => {
  process.exit(7);
});
let grown = 0;
server.registerTool("grow", { description: "Adds a new tool named extra_<n>." }, async () => {
  grown += 1;
  server.registerTool(`extra_${grown}`, { description: `Extra tool number ${grown}.` }, async () => ({ content: [{ type: "text", text: "extra" }] }));
  return { content: [{ type: "text", text: `added extra_${grown}` }] };
});
server.registerTool("secret_env", { description: "Returns the token from its environment." }, async () => ({
  content: [{ type: "text", text: `token=${process.env.FAKE_MCP_TOKEN ?? "(none)"} llm=${process.env.LLM_API_KEY ?? "(none)"}` }],
}));

await server.connect(new StdioServerTransport());
