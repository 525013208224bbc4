/** The browser tools on real Chromium against a local site, every request through the filtering proxy. */
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserConfigSchema } from "../../src/browser/config.js";
import { BrowserPool } from "../../src/browser/pool.js";
import { createBrowserHandler } from "../../src/handlers/browser.js";
import { AddressGuard } from "../../src/infra/net/address-guard.js";
import { isToolMediaOutput, type ToolContext, type ToolHandlerSpec } from "../../src/core/tools.js";
import { hasChromium } from "../helpers/browser.js";
import { assertToolDefinitionsValid } from "../handlers/tool-rules.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { eventually } from "../helpers/wait.js";
import { articleHtml, startSite, type Site } from "../web/site.js";

let site: Site;
let internal: Site;
let pool: BrowserPool;
let spec: ToolHandlerSpec;
let clock = 1_000_000;
const delivered: Array<{ path: string; sessionKey: string }> = [];
const contexts: ToolContext[] = [];

const BUTTON_PAGE = `<!doctype html><title>Button</title><p id="msg">Before the click</p>
<button id="go" onclick="document.getElementById('msg').textContent='After the click'">Change</button>`;

beforeAll(async () => {
  internal = await startSite({ "/pixel.png": (send) => send(200, "image/png", Buffer.alloc(10)), "/secret": (send) => send(200, "text/plain", "internal secret") });
  site = await startSite({
    "/article": (send) => send(200, "text/html", articleHtml(3)),
    "/button": (send) => send(200, "text/html", BUTTON_PAGE),
    "/leaky": (send) => send(200, "text/html", `<title>Leaky</title><p>hi</p><img src="${internal.url("/pixel.png")}"><script>fetch("${internal.url("/secret")}").catch(() => {})</script>`),
    "/to-internal": (send) => send(302, "text/plain", "", { location: internal.url("/secret") }),
    "/tunnels": (send) =>
      send(
        200,
        "text/html",
        `<title>Tunnels</title><script>new WebSocket("ws://127.0.0.1:${internal.port}/ws");fetch("https://127.0.0.1:${internal.port}/tls").catch(() => {})</script>`,
      ),
  });
  const guard = new AddressGuard({ allowPrivate: [`127.0.0.1:${site.port}`] });
  pool = new BrowserPool(browserConfigSchema.parse({ maxContexts: 2, idleMinutes: 10 }), guard, () => clock);
  spec = createBrowserHandler({
    pool,
    vision: true,
    deliver: async (path, _caption, ctx) => {
      delivered.push({ path, sessionKey: ctx.sessionKey });
      return { ok: true, receipts: [{ status: "delivered" }] };
    },
  });
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await site?.close();
  await internal?.close();
  await Promise.all(contexts.map((c) => rm(dirname(c.workspaceDir), { recursive: true, force: true })));
});

function ctxFor(sessionKey: string): ToolContext {
  const ctx = makeToolContext({ sessionKey });
  contexts.push(ctx);
  return ctx;
}

const run = (name: string, input: unknown, ctx: ToolContext) => spec.tools.find((t) => t.definition.name === name)!.run(input, ctx);

describe.skipIf(!hasChromium)("browser tools", () => {
  it("opens an article, clicks a button and reads the changed text, framed as untrusted", { timeout: 60_000 }, async () => {
    const ctx = ctxFor("telegram:1");
    const opened = (await run("browser_navigate", { url: site.url("/article") }, ctx)) as { title: string; status: number };
    expect(opened).toMatchObject({ title: "The Lighthouse Keeper", status: 200 });
    await run("browser_navigate", { url: site.url("/button") }, ctx);
    await run("browser_click", { selector: "text=Change" }, ctx);
    const read = (await run("browser_get_content", { selector: "#msg" }, ctx)) as { content: string };
    expect(read.content).toMatch(/^<untrusted_context source=".*\/button">\nAfter the click\n/);
  });

  it("takes a screenshot, delivers it and hands the PNG to the model", { timeout: 60_000 }, async () => {
    const ctx = ctxFor("telegram:1");
    const shot = await run("browser_screenshot", {}, ctx);
    expect(isToolMediaOutput(shot)).toBe(true);
    if (!isToolMediaOutput(shot)) return;
    const image = shot.parts.find((p) => p.type === "image");
    expect(image && Buffer.from(image.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(delivered.at(-1)).toMatchObject({ sessionKey: "telegram:1", path: expect.stringMatching(/^screenshots\/screenshot-\d+\.png$/) });
  });

  it("blocks a subresource and a fetch to another loopback port, and says why", { timeout: 60_000 }, async () => {
    const ctx = ctxFor("telegram:1");
    const mark = pool.proxy.refusals.length;
    const loaded = (await run("browser_navigate", { url: site.url("/leaky") }, ctx)) as { blocked?: Array<{ target: string; reason: string }> };
    // The image holds the load event back, so its refusal is in the navigation's own result.
    expect(loaded.blocked).toContainEqual({ target: internal.url("/pixel.png"), reason: expect.stringMatching(/loopback address/) });
    // The image and the fetch each reach the proxy and are refused there: both refusals name the internal port.
    const refused = await eventually(() => {
      const seen = pool.proxy.refusalsSince(mark).filter((r) => r.target.includes(`:${internal.port}`));
      return seen.length >= 2 ? seen : undefined;
    }, "the proxy's refusals of the image and the fetch");
    expect(refused.every((r) => /127\.0\.0\.1: it is a loopback address .*web\.allowPrivate/.test(r.reason))).toBe(true);
    expect(internal.hits).toEqual([]);
  });

  it("refuses a tunnel (CONNECT) for HTTPS and for a WebSocket to another loopback port", { timeout: 60_000 }, async () => {
    const ctx = ctxFor("telegram:1");
    const mark = pool.proxy.refusals.length;
    await run("browser_navigate", { url: site.url("/tunnels") }, ctx);
    const tunnels = await eventually(() => {
      const seen = pool.proxy.refusalsSince(mark).filter((r) => r.target === `127.0.0.1:${internal.port}`);
      return seen.length >= 2 ? seen : undefined;
    }, "the proxy's refusals of the HTTPS and WebSocket tunnels");
    expect(tunnels.every((r) => /loopback address/.test(r.reason))).toBe(true);
    expect(internal.hits).toEqual([]);
  });

  it("lists a WebSocket's and an HTTPS fetch's refused tunnels in the result of the action that opened them", { timeout: 60_000 }, async () => {
    const ctx = ctxFor("telegram:1");
    await run("browser_navigate", { url: site.url("/button") }, ctx);
    // The script's promise settles only after both tunnels failed, so both refusals fall within this one action.
    const script = `Promise.all([
      new Promise((done) => { const ws = new WebSocket("ws://127.0.0.1:${internal.port}/ws"); ws.onerror = ws.onclose = () => done("ws closed"); }),
      fetch("https://127.0.0.1:8443/tls").then(() => "fetched", () => "fetch failed"),
    ])`;
    const ran = (await run("browser_execute_js", { script }, ctx)) as { result: string; blocked?: Array<{ target: string }> };
    expect(ran.result).toContain('["ws closed","fetch failed"]');
    expect(ran.blocked?.map((r) => r.target).sort()).toEqual([`127.0.0.1:${internal.port}`, "127.0.0.1:8443"].sort());
  });

  it("refuses a redirect to a private address, and file:, data:, chrome: and view-source: URLs", { timeout: 60_000 }, async () => {
    const ctx = ctxFor("telegram:1");
    await expect(run("browser_navigate", { url: site.url("/to-internal") }, ctx)).rejects.toThrow(/Refused to connect to 127\.0\.0\.1: it is a loopback address .*web\.allowPrivate/);
    expect(internal.hits).toEqual([]);
    for (const url of ["file:///etc/passwd", "data:text/html,<p>x</p>", "chrome://settings", `view-source:${site.url("/article")}`]) {
      await expect(run("browser_navigate", { url }, ctx)).rejects.toThrow(/only http and https/);
    }
  });

  it("keeps one context per session, closes idle ones and the oldest when full", { timeout: 60_000 }, async () => {
    const a = ctxFor("telegram:1");
    const b = ctxFor("webchat:2");
    await run("browser_navigate", { url: site.url("/article") }, b);
    const tabsA = (await run("browser_list_tabs", {}, a)) as { tabs: Array<{ url: string }> };
    const tabsB = (await run("browser_list_tabs", {}, b)) as { tabs: Array<{ url: string }> };
    expect(tabsA.tabs[0]?.url).not.toBe(tabsB.tabs[0]?.url);
    clock += 60_000;
    await run("browser_list_tabs", {}, b);
    await run("browser_open", {}, ctxFor("discord:3"));
    expect(pool.get("telegram:1")).toBeUndefined();
    expect(pool.openContexts).toBe(2);
    clock += 10 * 60_000;
    await pool.sweep();
    expect(pool.openContexts).toBe(0);
  });
});

describe("browser tool definitions", () => {
  it("follow the tool rules, and only browser_execute_js needs exec", () => {
    const definitions = spec.tools.map((t) => t.definition);
    assertToolDefinitionsValid(definitions);
    expect(definitions.filter((d) => d.risk === "exec").map((d) => d.name)).toEqual(["browser_execute_js"]);
    expect(definitions.filter((d) => d.name.startsWith("browser_") && d.risk !== "exec").every((d) => d.risk === "web")).toBe(true);
  });
});
