/**
 * The console and WebChat in the browser's language: Chinese under zh-CN, English under en-US, the server's
 * refusals included (WebChat's of a message it resent on reconnecting, past a limit lowered meanwhile); the
 * console's switch and WebChat's ?lang= override it and are remembered; the strict CSP holds (no violation reported).
 */
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { hasChromium } from "../helpers/browser.js";
import { useBrowserSuite } from "./browser-suite.js";

const TOKEN = "languages-test-token";

const suite = useBrowserSuite();

/** A page in `locale` whose script errors and CSP refusals are collected (not failed loads: the 401 before sign-in). */
async function pageIn(locale: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await suite.browser().newContext({ locale });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Refused to|Content Security Policy/.test(msg.text())) errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  return { context, page, errors };
}

const navNames = (page: Page): Promise<string[]> => page.locator("nav a").allTextContents();

/** Uploads a text file as a skill on the console's skills page: the gateway refuses it (not an archive). */
async function installNotAnArchive(page: Page, words: { skills: string; archive: string; install: string }): Promise<string | null> {
  await page.getByRole("link", { name: words.skills }).click();
  await page.getByLabel(words.archive).setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not an archive") });
  await page.getByRole("button", { name: words.install }).click();
  const refusal = page.locator("main p.error");
  await refusal.waitFor();
  return refusal.textContent();
}

describe.skipIf(!hasChromium)("languages in Chromium", () => {
  it("the console speaks Chinese under zh-CN, and its switch turns it to English for good", async () => {
    const t = await suite.gateway({ http: { token: TOKEN } });
    const { context, page, errors } = await pageIn("zh-CN");
    await page.goto(`${t.url}/console/`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Switchboard 控制台");
    await page.getByLabel("令牌").fill(TOKEN);
    await page.getByRole("button", { name: "登录" }).click();
    await page.locator('tr[data-channel="web"]').getByText("已连接").waitFor();

    expect(await navNames(page)).toEqual(["渠道", "会话", "任务", "用量", "审批", "智能体", "技能", "访问权限", "送达回执", "日志", "配置", "MCP"]);
    expect(await page.locator("main h2").textContent()).toBe("渠道");
    expect(await page.locator("main th").allTextContents()).toContain("详情");
    expect(await page.evaluate("document.documentElement.lang")).toBe("zh-Hans");
    await page.getByRole("link", { name: "会话" }).click();
    await page.getByRole("heading", { name: "会话", level: 2 }).waitFor();
    expect(await page.locator("main th").allTextContents()).toEqual(["会话", "用户", "最后一条消息", "时间", ""]);
    expect(await installNotAnArchive(page, { skills: "技能", archive: "技能压缩包", install: "安装" })).toBe("notes.txt 不是 .zip、.tar.gz 或 .tgz 压缩包。");
    await page.getByRole("link", { name: "会话" }).click();

    await page.getByLabel("语言").selectOption("en");
    await page.getByRole("heading", { name: "Sessions", level: 2 }).waitFor();
    expect(await navNames(page)).toContain("Channels");
    await page.reload();
    await page.getByRole("heading", { name: "Sessions", level: 2 }).waitFor();
    expect(await page.getByLabel("Language").inputValue()).toBe("en");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the console speaks English under en-US, dates included", async () => {
    const t = await suite.gateway({ http: { token: TOKEN } });
    const { context, page, errors } = await pageIn("en-US");
    await page.goto(`${t.url}/console/`);
    await page.getByLabel("Token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator('tr[data-channel="web"]').getByText("connected").waitFor();
    expect(await navNames(page)).toEqual(["Channels", "Sessions", "Tasks", "Usage", "Approvals", "Agents", "Skills", "Access", "Receipts", "Logs", "Config", "MCP"]);
    expect(await page.locator("main h2").textContent()).toBe("Channels");
    await page.getByRole("link", { name: "MCP" }).click();
    const updated = await page.locator("main p.muted").textContent();
    // en-US writes month/day/year with a comma before the time.
    expect(updated).toMatch(/^Updated \d{1,2}\/\d{1,2}\/\d{4}, /);
    expect(await installNotAnArchive(page, { skills: "Skills", archive: "Skill archive", install: "Install" })).toBe(
      "notes.txt is not a .zip, .tar.gz or .tgz archive.",
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it("WebChat speaks Chinese under zh-CN; ?lang=en overrides and is remembered", async () => {
    const t = await suite.gateway();
    const { context, page, errors } = await pageIn("zh-CN");
    await page.goto(`${t.url}/`);
    await page.locator("#status-text").getByText("在线").waitFor();
    const input = page.getByLabel("消息");
    expect(await input.getAttribute("placeholder")).toBe("输入消息…");
    expect(await page.locator("#send").textContent()).toBe("发送");
    expect(await page.locator("#empty").textContent()).toBe("还没有消息。打个招呼吧！");

    await page.goto(`${t.url}/?lang=en`);
    await page.locator("#status-text").getByText("online").waitFor();
    expect(await page.getByLabel("Message").getAttribute("placeholder")).toBe("Write a message…");
    await page.goto(`${t.url}/`);
    await page.locator("#status-text").getByText("online").waitFor();
    expect(await page.locator("#send").textContent()).toBe("Send");
    expect(errors).toEqual([]);
    await context.close();
  });

  it.each([
    ["zh-CN", "未发送：这条消息有 20 个字符，网关最多接受 10 个。"],
    ["en-US", "Not sent: The message has 20 characters; the gateway accepts at most 10."],
  ])("WebChat shows the gateway's refusal of a message in the page's language under %s", async (locale, shown) => {
    const t = await suite.gateway({ http: { maxTextLength: 1000 } });
    const { context, page, errors } = await pageIn(locale);
    await page.goto(`${t.url}/`);
    await page.locator("#status.online").waitFor();
    // Written while the gateway is down, the message waits in the page. The gateway comes back with a lower
    // limit; the page resends what waited as it reconnects, and the gateway itself refuses it.
    await t.restartWith({ http: { maxTextLength: 10 } }, async () => {
      await page.locator("#status.offline").waitFor();
      await page.locator("#input").fill("x".repeat(20));
      await page.locator("#input").press("Enter");
      await page.locator(".row.user.pending").waitFor();
    });
    const meta = page.locator(".row.user.failed .meta");
    await meta.waitFor();
    expect(await meta.textContent()).toBe(shown);
    expect(errors).toEqual([]);
    await context.close();
  });
});
