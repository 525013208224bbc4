/**
 * The whole gateway: the model (fake OpenAI server) opens a local page, clicks its button and takes a screenshot,
 * which reaches the Telegram chat as a photo (fake Bot API) and a WebChat chat as an attachment, each with a
 * delivery receipt, and the model as an image.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, messageOf, text } from "../fakes/telegram/updates.js";
import { closeInOrder } from "../helpers/close.js";
import { hasChromium } from "../helpers/browser.js";
import { startSite, type Site } from "../web/site.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
let site: Site | undefined;
afterEach(() => closeInOrder([t, tg, site]).then(() => (t = tg = site = undefined)));

const PAGE = `<!doctype html><title>Counter</title><p id="msg">Before the click</p>
<button onclick="document.getElementById('msg').textContent='After the click'">Change</button>`;

function scriptBrowsing(gw: TestGateway, url: string): void {
  gw.fake.enqueue(
    { toolCalls: [{ name: "browser_navigate", arguments: { url } }] },
    { toolCalls: [{ name: "browser_click", arguments: { selector: "text=Change" } }] },
    { toolCalls: [{ name: "browser_get_content", arguments: { selector: "#msg" } }] },
    { toolCalls: [{ name: "browser_screenshot", arguments: {} }] },
    { text: "Here is the page after the click." },
  );
}

describe.skipIf(!hasChromium)("screenshots reach the chat", () => {
  it("on WebChat, as an attachment of the chat with a receipt", { timeout: 90_000 }, async () => {
    site = await startSite({ "/": (send) => send(200, "text/html", PAGE) });
    t = await startTestGateway({ web: { allowPrivate: [`127.0.0.1:${site.port}`] } });
    scriptBrowsing(t, site.url("/"));

    const answer = await t.post({ chatId: "browse-chat", userId: "alice", text: "open my page and click the button" });

    expect(answer.status).toBe(200);
    const replies = answer.body.replies as Array<{ text: string; attachments: Array<{ name: string; url: string }> }>;
    const attachment = replies.flatMap((r) => r.attachments).find((a) => a.name.endsWith(".png"));
    const png = Buffer.from(await (await fetch(`${t.url}${attachment!.url}`)).arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(JSON.stringify(t.fake.lastToolResults())).toContain("After the click");
    const shot = t.fake.lastToolResults().at(-1)!.content as { delivery: { receipts: Array<{ status: string; name: string }> } };
    expect(shot.delivery.receipts[0]).toMatchObject({ status: "delivered", name: attachment!.name });
    expect(replies.at(-1)?.text).toBe("Here is the page after the click.");
  });


  it("on Telegram, with sendPhoto and a receipt, and to the model as an image", { timeout: 90_000 }, async () => {
    site = await startSite({ "/": (send) => send(200, "text/html", PAGE) });
    tg = await startFakeTelegram();
    t = await startTestGateway({
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
      access: { allowFrom: [`telegram:${alice.id}`] },
      web: { allowPrivate: [`127.0.0.1:${site.port}`] },
      llm: { vision: true },
    });
    scriptBrowsing(t, site.url("/"));
    const update = text(directChat(), "open my page and click the button");
    tg.addUpdate(update);
    const id = messageOf(update).message_id;
    await tg.waitFor(() => tg!.sent.find((s) => s.method === "sendMessage" && s.replyTo === id), 60_000);

    const photo = tg.sent.find((s) => s.method === "sendPhoto");
    expect(photo?.file?.data.subarray(1, 4).toString()).toBe("PNG");
    const results = t.fake.lastToolResults();
    expect(JSON.stringify(results)).toContain("After the click");
    const parts = results.at(-1)!.content as Array<{ type: string; text?: string; mediaType?: string }>;
    const summary = JSON.parse(parts[0]!.text!) as { delivery: { receipts: Array<{ status: string; message_id: string }> } };
    expect(summary.delivery.receipts[0]).toMatchObject({ status: "delivered", message_id: String(photo!.messageId) });
    expect(parts[1]).toMatchObject({ type: "image-data", mediaType: "image/png" });
  });
});
