/**
 * The browser's plug: a pool of Chromium contexts behind the filtering proxy (the same address rule as web_fetch,
 * from web.allowPrivate), the browser tools, screenshots delivered through deliver_artifacts, and doctor's launch.
 */
import { BrowserPool } from "../browser/pool.js";
import { browserConfigSchema } from "../browser/config.js";
import { createBrowserHandler } from "../handlers/browser.js";
import { AddressGuard } from "../infra/net/address-guard.js";
import { defineFeature } from "./module.js";
import { primaryEntry } from "../infra/config/model-entries.js";

const SWEEP_MS = 60_000;

export const browserFeature = defineFeature({
  name: "browser",
  configSchema: browserConfigSchema,
  reads: ["web"],
  create: ({ settings, sections, registry, core }) => {
    if (!settings.enabled) return {};
    const allowPrivate = (sections.web as { allowPrivate?: string[] } | undefined)?.allowPrivate ?? [];
    const pool = new BrowserPool(settings, new AddressGuard({ allowPrivate }));
    let sweeper: NodeJS.Timeout | undefined;
    const handler = createBrowserHandler({
      pool,
      vision: primaryEntry(core.llm)?.vision ?? false,
      deliver: async (path, caption, ctx) => {
        const outcome = await registry.executeByTool("deliver_artifacts", { artifacts: [{ type: "image", path, caption }] }, ctx);
        return outcome.ok ? outcome.output : { ok: false, error: outcome.error };
      },
    });
    return {
      handlers: [handler],
      start: () => {
        sweeper = setInterval(() => void pool.sweep(), SWEEP_MS);
        sweeper.unref();
      },
      stop: async () => {
        clearInterval(sweeper);
        await pool.close();
      },
    };
  },
  doctor: async (settings) => {
    if (!settings.enabled) return [{ name: "browser", ok: true, detail: "off (browser.enabled: false)" }];
    const pool = new BrowserPool(settings, new AddressGuard());
    try {
      const session = await pool.acquire("doctor");
      await session.active.setContent("<p>ok</p>");
      return [{ name: "browser", ok: true, detail: `Chromium launched (${session.context.browser()?.version() ?? "unknown version"})` }];
    } catch (err) {
      return [{ name: "browser", ok: false, detail: err instanceof Error ? err.message.split("\n")[0]! : String(err), fix: "install chromium (apt-get install chromium) or set browser.executablePath" }];
    } finally {
      await pool.close();
    }
  },
});
