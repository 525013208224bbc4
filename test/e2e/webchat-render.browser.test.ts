/** WebChat renders the bot's Markdown (table, list, long code) inside the bubble: no page overflow at 1280 and 390 px; it sends the browser's time zone. */
import { describe, expect, it } from "vitest";
import { turnNotesOf } from "../fakes/openai-server.js";
import { hasChromium } from "../helpers/browser.js";
import { useBrowserSuite } from "./browser-suite.js";

const REPLY = [
  "## Plan",
  "",
  "| Step | Owner | Due |",
  "| --- | --- | --- |",
  "| Draft the announcement for the whole team | Alice | Monday |",
  "| Review | Bob | Tuesday |",
  "",
  "- first item with *emphasis*",
  "- second item with ~~strikethrough~~",
  "",
  "> a quote",
  "",
  "```ts",
  `const line = "${"x".repeat(400)}";`,
  "```",
  "",
  '<img src=x onerror="window.__pwned = true">',
].join("\n");

const suite = useBrowserSuite();

describe.skipIf(!hasChromium)("WebChat Markdown in Chromium", () => {
  for (const width of [1280, 390]) {
    it(`renders a table, a list and a long code block without page overflow at ${width} px`, async () => {
      const t = await suite.gateway();
      t.fake.enqueue({ text: REPLY });
      const page = await suite.browser().newPage({ viewport: { width, height: 800 }, timezoneId: "America/Sao_Paulo" });
      await page.goto(`${t.url}/`);
      await page.getByLabel("Message").fill("Show me the plan");
      await page.keyboard.press("Enter");
      const bubble = page.locator(".row.bot .bubble");
      await bubble.locator("table").waitFor();

      // The page sent the browser's zone with its hello: the first turn already runs in it.
      expect(turnNotesOf(t.fake.requests[0]!)).toContain("America/Sao_Paulo");
      expect(await bubble.locator("h2").textContent()).toBe("Plan");
      expect(await bubble.locator("li").count()).toBe(2);
      expect(await bubble.locator("em").textContent()).toBe("emphasis");
      expect(await bubble.locator("del").textContent()).toBe("strikethrough");
      expect(await bubble.locator("blockquote").count()).toBe(1);
      expect(await bubble.locator("img[onerror]").count()).toBe(0);
      expect(await page.evaluate("window.__pwned")).toBeUndefined();

      // Measured in the page from element boxes (a string: the test's TypeScript has no DOM types).
      const boxes = (await page.evaluate(`(() => {
        const rect = (selector) => document.querySelector(selector).getBoundingClientRect();
        const pre = document.querySelector(".row.bot .bubble pre");
        return {
          viewport: document.documentElement.clientWidth,
          pageWidth: document.documentElement.scrollWidth,
          bubbleRight: rect(".row.bot .bubble").right,
          preRight: rect(".row.bot .bubble pre").right,
          tableWrapRight: rect(".row.bot .bubble .table-wrap").right,
          preScrolls: pre.scrollWidth > pre.clientWidth,
        };
      })()`)) as Record<"viewport" | "pageWidth" | "bubbleRight" | "preRight" | "tableWrapRight", number> & { preScrolls: boolean };
      expect(boxes.pageWidth).toBeLessThanOrEqual(boxes.viewport);
      expect(boxes.bubbleRight).toBeLessThanOrEqual(boxes.viewport);
      expect(boxes.preRight).toBeLessThanOrEqual(boxes.bubbleRight);
      expect(boxes.tableWrapRight).toBeLessThanOrEqual(boxes.bubbleRight);
      expect(boxes.preScrolls).toBe(true);
    });
  }
});
