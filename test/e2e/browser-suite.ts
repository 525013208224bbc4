/**
 * One Chromium for a browser test file and one gateway per test, closed after it: the set-up both browser suites
 * (console and WebChat rendering) share.
 */
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { ensureWebBuild, hasChromium, launchChromium } from "../helpers/browser.js";
import { startTestGateway, type TestGateway } from "./harness.js";

export interface BrowserSuite {
  /** The file's Chromium (launched in beforeAll). */
  browser(): Browser;
  /** A gateway for this test, closed after it. */
  gateway(overrides?: Parameters<typeof startTestGateway>[0]): Promise<TestGateway>;
}

export function useBrowserSuite(): BrowserSuite {
  let browser: Browser | undefined;
  let current: TestGateway | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    await ensureWebBuild();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => browser?.close());
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    browser: () => {
      if (!browser) throw new Error("Chromium was not launched (is /usr/bin/chromium installed?)");
      return browser;
    },
    gateway: async (overrides) => (current = await startTestGateway(overrides)),
  };
}
