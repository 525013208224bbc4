/** The owner's console in a real browser: sign in, see a WebChat session, cancel a task, approve a pairing. */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { PairingBook } from "../../src/access/pairing.js";
import { hasChromium } from "../helpers/browser.js";
import { useBrowserSuite } from "./browser-suite.js";
import type { TestGateway } from "./harness.js";
import { schedulerFeature } from "../../src/features/scheduler.js";

const TOKEN = "console-test-token";

const suite = useBrowserSuite();

async function signIn(page: Page, gw: TestGateway): Promise<void> {
  await page.goto(`${gw.url}/console/`);
  await page.getByLabel("Token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator('tr[data-channel="web"]').getByText("connected").waitFor();
}

describe.skipIf(!hasChromium)("console in Chromium", () => {
  it("refuses a wrong token, then shows the session of a WebChat message", async () => {
    const t = await suite.gateway({ http: { token: TOKEN } });
    t.fake.enqueue({ text: "Hello from the bot" });
    const page = await suite.browser().newPage();
    await page.goto(`${t.url}/console/`);
    await page.getByLabel("Token").fill("wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That token was not accepted.").waitFor();
    await signIn(page, t);

    const chat = await suite.browser().newPage();
    await chat.goto(`${t.url}/`);
    await chat.getByLabel("Access token").fill(TOKEN);
    await chat.getByRole("button", { name: "Continue" }).click();
    await chat.getByLabel("Message").fill("Where is my parcel?");
    await chat.keyboard.press("Enter");
    await chat.locator(".row.bot .bubble").getByText("Hello from the bot").waitFor();

    await page.getByRole("link", { name: "Sessions" }).click();
    const row = page.locator("tr[data-session]").filter({ hasText: "Where is my parcel?" });
    await row.waitFor();
    await row.getByRole("button", { name: "Transcript" }).click();
    await page.locator(".transcript .line.assistant").getByText("Hello from the bot").waitFor();
    await row.getByRole("button", { name: "Reset" }).click();
    await page.locator(".transcript").getByText("The history is empty.").waitFor();
  });

  it("cancels a scheduled task and approves a pairing request", async () => {
    const t = await suite.gateway({ http: { token: TOKEN } });
    const scheduler = t.gateway.feature(schedulerFeature)!.scheduler!;
    const { task } = await scheduler.create(
      {
        name: "stretch",
        kind: "reminder",
        text: "Time to stretch",
        when: { in: "2h" },
        target: { channel: "web", chatId: "c1" },
        chatType: "direct",
        creator: { channel: "web", userId: "alice" },
      },
      { kind: "operator" },
    );
    const pairing = new PairingBook(t.gateway.store, ["web"]);
    const request = await pairing.request({ channel: "web", userId: "bob", chatId: "bob-chat", name: "Bob" });
    expect(request.status).toBe("issued");

    const page = await suite.browser().newPage();
    await signIn(page, t);
    await page.getByRole("link", { name: "Tasks" }).click();
    const taskRow = page.locator(`tr[data-task="${task.id}"]`);
    await taskRow.getByRole("button", { name: "Cancel" }).click();
    await taskRow.waitFor({ state: "detached" });
    expect((await scheduler.get(task.id, { kind: "operator" })).status).toBe("cancelled");
    const stored = await scheduler.list({ kind: "operator" }, { everyone: true });
    expect(stored.map((x) => x.id)).not.toContain(task.id);

    await page.getByRole("link", { name: "Access" }).click();
    await page.locator('tr[data-pairing="web:bob"]').getByRole("button", { name: "Approve" }).click();
    await page.locator('tr[data-member="web:bob"]').waitFor();
    expect(await pairing.isApproved("web", "bob")).toBe(true);
    expect(await pairing.pending("web")).toEqual([]);
  });
});
