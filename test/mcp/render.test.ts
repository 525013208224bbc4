/** The "MCP Servers" section's format (seed 001), the config's edges and the secrets it declares. */
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config.js";
import { collectSecrets } from "../../src/config.js";
import { budgetWarning, sectionTokens } from "../../src/mcp/budget.js";
import { mcpConfigSchema } from "../../src/mcp/config.js";
import type { ServerDefinition } from "../../src/mcp/definitions.js";
import { renderMcpSection } from "../../src/mcp/render.js";

const definition: ServerDefinition = {
  id: "db",
  serverName: "Database Server",
  serverVersion: "1.0.0",
  instructions: "",
  fetchedAt: "2026-11-23T00:00:00.000Z",
  tools: [
    {
      name: "query",
      description: "Runs a read-only SQL query.\nReturns rows as JSON.",
      inputSchema: {
        type: "object",
        properties: {
          sql: { type: "string", description: "The query" },
          limit: { type: "integer" },
          format: { type: "string", enum: ["json", "csv"], description: "Output\nformat" },
          tags: { type: "array", items: { type: "string" } },
          since: { anyOf: [{ type: "string" }, { type: "null" }] },
        },
        required: ["sql"],
      },
    },
    { name: "ping", description: "", title: "Ping the database", inputSchema: { type: "object" } },
  ],
};

describe("renderMcpSection", () => {
  it("lists each tool with its full description and every parameter's type, whether required, and description", () => {
    const text = renderMcpSection([{ id: "db", status: { state: "connected" }, definition }]);
    expect(text).toContain(
      [
        "### Database Server (`db`)",
        "- **query**: Runs a read-only SQL query.",
        "  Returns rows as JSON.",
        "  - `sql` (string, required): The query",
        "  - `limit` (integer, optional)",
        "  - `format` (string, one of: json | csv, optional): Output format",
        "  - `tags` (array of string, optional)",
        "  - `since` (string | null, optional)",
        "- **ping**: Ping the database",
      ].join("\n"),
    );
  });

  it("uses the configured name, and says when a server is not connected or not known yet", () => {
    const offline = renderMcpSection([
      { id: "db", name: "Warehouse", status: { state: "failed", error: "refused" }, definition },
      { id: "new", status: { state: "connecting" }, definition: undefined },
    ]);
    expect(offline).toContain("### Warehouse (`db`)\n(Not connected right now: calls fail until it reconnects. Tools as last seen 2026-11-23T00:00:00.000Z.)");
    expect(offline).toContain("### new (`new`)\n(Not connected yet: its tools are not known.)");
    expect(renderMcpSection([])).toBeUndefined();
  });

  it("counts the section's tokens with a real tokenizer and warns only over the budget", async () => {
    const text = renderMcpSection([{ id: "db", status: { state: "connected" }, definition }]);
    const tokens = sectionTokens(text);
    expect(tokens).toBeGreaterThan(50);
    expect(tokens).toBeLessThan((text ?? "").length);
    expect(budgetWarning(tokens, tokens)).toBeUndefined();
    expect(budgetWarning(tokens, tokens - 1)).toContain(`takes ${tokens} tokens, over mcp.promptTokenBudget (${tokens - 1})`);
  });
});

describe("mcp config", () => {
  it("takes a stdio or an HTTP server, and refuses a mix or a bad id with a clear message", () => {
    const ok = mcpConfigSchema.parse({ servers: { a: { command: "npx" }, b: { url: "https://x.example/mcp" } } });
    expect(ok.servers.a).toMatchObject({ risk: "exec", ownersOnly: false, sandbox: false, args: [] });
    expect(ok.servers.b).toMatchObject({ transport: "auto", headers: {} });
    const mixed = mcpConfigSchema.safeParse({ servers: { a: { command: "npx", url: "https://x.example" } } });
    expect(mixed.error?.issues[0]?.message).toContain("either `command` (stdio) or `url` (HTTP)");
    const badId = mcpConfigSchema.safeParse({ servers: { "Bad Id": { command: "npx" } } });
    expect(badId.error?.issues[0]?.message).toContain("server ids are lowercase");
  });

  it("treats env and header values as secrets (the token of a Bearer header)", () => {
    const config = configSchema.parse({
      mcp: {
        servers: {
          a: { command: "npx", env: { API_KEY: "env-secret-1234" } },
          b: { url: "https://x.example/mcp", headers: { Authorization: "Bearer hdr-secret-5678" } },
        },
      },
    });
    expect(collectSecrets(config)).toEqual(expect.arrayContaining(["env-secret-1234", "hdr-secret-5678"]));
    expect(collectSecrets(config)).not.toContain("Bearer hdr-secret-5678");
  });
});
