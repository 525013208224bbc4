import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebHandler } from "../../src/handlers/web.js";
import { webConfigSchema } from "../../src/web/config.js";
import { WebEngine } from "../../src/web/index.js";
import type { ToolHandlerSpec } from "../../src/core/tools.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { articleHtml, startSite, type Site } from "./site.js";

let site: Site;
let internal: Site;

beforeAll(async () => {
  internal = await startSite({ "/secret": (send) => send(200, "text/plain", "internal secret") });
  site = await startSite({
    "/article": (send) => send(200, "text/html; charset=utf-8", articleHtml()),
    "/data.json": (send) => send(200, "application/json", JSON.stringify({ answer: 42 })),
    "/notes.md": (send) => send(200, "text/markdown", "# Notes\n\n- one"),
    "/blob": (send) => send(200, "application/zip", Buffer.from([0x50, 0x4b, 3, 4])),
    "/big": (send) => send(200, "text/plain", "x".repeat(50_000)),
    "/hop": (send) => send(302, "text/plain", "", { location: "/article" }),
    "/to-internal": (send) => send(302, "text/plain", "", { location: internal.url("/secret") }),
    "/to-metadata": (send) => send(301, "text/plain", "", { location: "http://169.254.169.254/latest/meta-data/" }),
    "/to-file": (send) => send(302, "text/plain", "", { location: "file:///etc/passwd" }),
    "/missing-page": (send) => send(404, "text/plain", "gone"),
  });
});

afterAll(async () => {
  await site.close();
  await internal.close();
});

function handler(web: Record<string, unknown> = {}, resolver?: ConstructorParameters<typeof WebEngine>[1]): { spec: ToolHandlerSpec; engine: WebEngine } {
  const settings = webConfigSchema.parse({ allowPrivate: [`127.0.0.1:${site.port}`], ...web });
  const engine = new WebEngine(settings, resolver);
  return { spec: createWebHandler(engine, { fetch: true, search: true }), engine };
}

async function fetchTool(input: unknown, web?: Record<string, unknown>, resolver?: ConstructorParameters<typeof WebEngine>[1]) {
  const { spec, engine } = handler(web, resolver);
  try {
    return await spec.tools.find((t) => t.definition.name === "web_fetch")!.run(input, makeToolContext());
  } finally {
    await engine.close();
  }
}

describe("web_fetch", () => {
  it("returns the article as Markdown without navigation, scripts or styles, framed as untrusted", async () => {
    const out = (await fetchTool({ url: site.url("/hop") })) as Record<string, string | boolean>;
    expect(out.url).toBe(site.url("/article"));
    expect(out.title).toBe("The Lighthouse Keeper");
    expect(out.content_type).toContain("text/html");
    expect(out.truncated).toBe(false);
    expect(out.content).toMatch(/^<untrusted_context source="http:\/\/127\.0\.0\.1:\d+\/article">/);
    expect(out.content).toContain("Paragraph 12 of the lighthouse story");
    expect(out.content).not.toMatch(/tracking|color:red|Shop|Copyright footer/);
  });

  it("passes JSON and Markdown through, and cuts long text at maxChars marking it cut", async () => {
    expect(((await fetchTool({ url: site.url("/data.json") })) as { content: string }).content).toContain('{"answer":42}');
    expect(((await fetchTool({ url: site.url("/notes.md") })) as { content: string }).content).toContain("# Notes\n\n- one");
    const big = (await fetchTool({ url: site.url("/big"), maxChars: 1000 })) as { content: string; truncated: boolean };
    expect(big.truncated).toBe(true);
    expect(big.content).toContain("x".repeat(1000));
    expect(big.content).not.toContain("x".repeat(1001));
  });

  it("stops reading at web.fetch.maxBytes and says the text was cut", async () => {
    const out = (await fetchTool({ url: site.url("/big") }, { fetch: { maxBytes: 2000 } })) as { content: string; truncated: boolean };
    expect(out.truncated).toBe(true);
    expect(out.content).not.toContain("x".repeat(2001));
  });

  it("refuses a binary naming its content type, and reports an HTTP error status", async () => {
    await expect(fetchTool({ url: site.url("/blob") })).rejects.toThrow(/application\/zip/);
    await expect(fetchTool({ url: site.url("/missing-page") })).rejects.toThrow(/HTTP 404/);
  });

  it("refuses a redirect to another loopback port, naming the address, the reason and the setting", async () => {
    await expect(fetchTool({ url: site.url("/to-internal") })).rejects.toThrow(
      new RegExp(`Refused to connect to 127\\.0\\.0\\.1: it is a loopback address .*web\\.allowPrivate`),
    );
    expect(internal.hits).not.toContain("/secret");
  });

  it("refuses the metadata address and non-http schemes, also as redirect targets", async () => {
    await expect(fetchTool({ url: site.url("/to-metadata") })).rejects.toThrow(/169\.254\.169\.254: it is a link-local address/);
    await expect(fetchTool({ url: site.url("/to-file") })).rejects.toThrow(/Only http and https/);
    await expect(fetchTool({ url: "ftp://example.com/x" })).rejects.toThrow(/Only http and https/);
    await expect(fetchTool({ url: `http://[::ffff:127.0.0.1]:${internal.port}/secret` })).rejects.toThrow(/loopback/);
    await expect(fetchTool({ url: "http://10.1.2.3/" })).rejects.toThrow(/private network address \(RFC 1918\)/);
  });

  it("checks the address a host name resolves to when connecting (a name pointing at loopback is refused)", async () => {
    const resolver = async (host: string) => (host === "rebind.test" ? [{ address: "127.0.0.1", family: 4 }] : []);
    await expect(fetchTool({ url: `http://rebind.test:${internal.port}/secret` }, {}, resolver)).rejects.toThrow(
      /rebind\.test \(127\.0\.0\.1\): it is a loopback address/,
    );
    expect(internal.hits).not.toContain("/secret");
    const page = (await fetchTool({ url: `http://rebind.test:${site.port}/article` }, {}, resolver)) as { title: string };
    expect(page.title).toBe("The Lighthouse Keeper");
  });

  it("allows a whole host or a CIDR range when the operator lists it", async () => {
    const byHost = (await fetchTool({ url: internal.url("/secret") }, { allowPrivate: ["127.0.0.1"] })) as { content: string };
    expect(byHost.content).toContain("internal secret");
    const byRange = (await fetchTool({ url: internal.url("/secret") }, { allowPrivate: ["127.0.0.0/8"] })) as { content: string };
    expect(byRange.content).toContain("internal secret");
  });

  it("rejects a malformed allow list entry with a clear error", () => {
    expect(() => handler({ allowPrivate: ["10.0.0.0/99"] })).toThrow(/web\.allowPrivate: "10\.0\.0\.0\/99" is not a valid CIDR range/);
  });
});
