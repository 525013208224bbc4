/**
 * Chromium's own requests (update checks, account lookups: no page asks for them) go through the filtering proxy
 * too and are refused there offline; a tool result's `blocked` must not report them as the page's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserConfigSchema } from "../../src/browser/config.js";
import { BrowserPool } from "../../src/browser/pool.js";
import { targetHost } from "../../src/browser/proxy.js";
import { createBrowserHandler } from "../../src/handlers/browser.js";
import { AddressGuard } from "../../src/infra/net/address-guard.js";
import type { ToolHandlerSpec } from "../../src/core/tools.js";
import { hasChromium } from "../helpers/browser.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { eventually } from "../helpers/wait.js";
import { articleHtml, startSite, type Site } from "../web/site.js";

let site: Site;
let pool: BrowserPool;
let spec: ToolHandlerSpec;

beforeAll(async () => {
  site = await startSite({
    "/article": (send) => send(200, "text/html", articleHtml(3)),
    "/other": (send) => send(200, "text/html", "<title>Other</title><p>another page</p>"),
  });
  pool = new BrowserPool(browserConfigSchema.parse({}), new AddressGuard({ allowPrivate: [`127.0.0.1:${site.port}`] }));
  spec = createBrowserHandler({ pool, vision: false, deliver: async () => ({ ok: true }) });
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
});

type Result = { blocked?: Array<{ target: string; reason: string }> };
const run = (name: string, input: unknown) => spec.tools.find((t) => t.definition.name === name)!.run(input, makeToolContext({ sessionKey: "telegram:1" })) as Promise<Result>;

describe.skipIf(!hasChromium)("Chromium's own requests", () => {
  it("never appear in blocked, though the proxy refuses them during the actions", { timeout: 60_000 }, async () => {
    const siteHost = `127.0.0.1:${site.port}`;
    const results: Result[] = [];
    let background: string[] = [];
    // A fresh browser, several navigations, then short waits until a wait's span covered a refusal of a request
    // no page made (Chromium sends its first ones within seconds of starting; the tab is idle meanwhile).
    for (const path of ["/article", "/other", "/article"]) results.push(await run("browser_navigate", { url: site.url(path) }));
    await eventually(
      async () => {
        const before = pool.proxy.refusals.length;
        const waited = await run("browser_wait", { ms: 300 });
        background = pool.proxy.refusalsSince(before).map((r) => r.target).filter((target) => targetHost(target) !== siteHost);
        results.push(waited);
        return background.length > 0;
      },
      "a refusal of Chromium's own traffic during an action",
      30_000,
    );
    expect(background.length).toBeGreaterThan(0);
    expect(results.flatMap((r) => r.blocked ?? [])).toEqual([]);
  });
});
