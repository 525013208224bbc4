/** The whole gateway with the WhatsApp channel against the fake Cloud API and the fake LLM. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { startFakeWhatsApp, type FakeWhatsApp, type SentMessage } from "../../fakes/whatsapp/index.js";
import { alice, buttonReply, mallory, text, type Person } from "../../fakes/whatsapp/notifications.js";
import { CONVERSATIONS, scriptedModel } from "../../fakes/scripted-model.js";
import { closeInOrder } from "../../helpers/close.js";
import { TYPING_DELAY_MS } from "../../../src/gateway/acknowledge.js";
import { schedulerFeature } from "../../../src/features/scheduler.js";
import { eventually } from "../../helpers/wait.js";

let t: TestGateway | undefined;
let wa: FakeWhatsApp | undefined;
afterEach(() => closeInOrder([t, wa]).then(() => (t = wa = undefined)));

const bob: Person = { waId: "15550002222", name: "Bob" };

async function start(extra: ConfigInput = {}): Promise<{ t: TestGateway; wa: FakeWhatsApp; hook: string }> {
  wa = await startFakeWhatsApp();
  t = await startTestGateway({
    ...extra,
    channels: {
      web: { enabled: false },
      whatsapp: { accessToken: wa.accessToken, phoneNumberId: wa.phoneNumberId, appSecret: wa.appSecret, verifyToken: wa.verifyToken, apiUrl: wa.apiUrl },
    },
    access: { allowFrom: [`whatsapp:${alice.waId}`], ...extra.access },
  });
  return { t, wa, hook: `${t.url}/whatsapp/webhook` };
}

const replyTo = (fake: FakeWhatsApp, messageId: string): Promise<SentMessage> =>
  eventually(() => fake.sent.find((s) => s.replyTo === messageId), `the reply to ${messageId}`, 10_000);

const idOf = (notification: Record<string, unknown>): string => JSON.stringify(notification).match(/"id":"(wamid\.[^"]+)"/)![1]!;

describe("WhatsApp through the gateway", () => {
  it("answers Meta's verification challenge only with the verify token", async () => {
    const { hook, wa } = await start();
    const ok = await fetch(`${hook}?hub.mode=subscribe&hub.verify_token=${wa.verifyToken}&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("1158201444");
    const wrong = await fetch(`${hook}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444`);
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain("1158201444");
  });

  it("answers a direct message: read receipt, typing, then the model's Markdown in WhatsApp's formatting, quoting the message", async () => {
    const { t, wa, hook } = await start();
    t.fake.enqueue({ text: "Hello **Alice**, ~~no~~ _yes_.", delayMs: 3 * TYPING_DELAY_MS });
    const notification = wa.inbound(alice, text("hi, who are you? ☕ café"));
    expect((await wa.deliver(hook, notification)).status).toBe(200);
    const reply = await replyTo(wa, idOf(notification));
    expect(reply).toMatchObject({ to: alice.waId, type: "text", text: "Hello *Alice*, ~no~ _yes_." });
    expect(JSON.stringify(t.fake.requests[0]!.body.messages)).toContain("hi, who are you? ☕ café");
    expect(wa.reads.filter((r) => r.messageId === idOf(notification)).map((r) => r.typing)).toEqual(expect.arrayContaining([false, true]));
    expect(JSON.stringify(t.logs)).not.toContain(wa.accessToken);
    expect(JSON.stringify(t.logs)).not.toContain(wa.appSecret);
  });

  it("drops a notification without a signature (401) or with a wrong one (403), and one re-serialized from Meta's bytes", async () => {
    const { t, wa, hook } = await start();
    t.fake.respondWith(() => ({ text: "should not happen" }));
    expect((await wa.deliver(hook, wa.inbound(alice, text("unsigned")), { signature: "none" })).status).toBe(401);
    expect((await wa.deliver(hook, wa.inbound(alice, text("forged")), { signature: "wrong" })).status).toBe(403);
    // Signed over Meta's escaped bytes, sent as plain UTF-8 JSON: the bytes differ, so the signature does not match.
    const notification = wa.inbound(alice, text("naïve"));
    const { sign, metaJson } = await import("../../fakes/whatsapp/notifications.js");
    const reserialized = await fetch(hook, { method: "POST", headers: { "x-hub-signature-256": sign(metaJson(notification), wa.appSecret) }, body: JSON.stringify(notification) });
    expect(reserialized.status).toBe(403);
    const signedGarbage = await fetch(hook, { method: "POST", headers: { "x-hub-signature-256": sign("not json", wa.appSecret) }, body: "not json" });
    expect(signedGarbage.status).toBe(400);
    expect(t.fake.requests).toHaveLength(0);
    expect(wa.sent).toHaveLength(0);
  });

  it("answers a redelivered message once, also after a restart", async () => {
    const { t, wa, hook } = await start();
    t.fake.respondWith(() => ({ text: "once" }));
    const notification = wa.inbound(alice, text("only once please"));
    const [first, second] = await Promise.all([wa.deliver(hook, notification), wa.deliver(hook, notification)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await replyTo(wa, idOf(notification));
    expect((await wa.deliver(hook, notification)).status).toBe(200);
    await t.restart();
    expect((await wa.deliver(`${t.url}/whatsapp/webhook`, notification)).status).toBe(200);
    const later = wa.inbound(alice, text("next"));
    await wa.deliver(`${t.url}/whatsapp/webhook`, later);
    await replyTo(wa, idOf(later));
    expect(t.fake.requests).toHaveLength(2);
    expect(wa.sent.filter((s) => s.text === "once")).toHaveLength(2);
  });

  it("splits a long reply into messages of at most 4,096 characters, and gets it through a rate limit", async () => {
    const { t, wa, hook } = await start();
    const paragraph = "All work and no play makes Jack a dull boy. ".repeat(20).trim();
    const long = Array.from({ length: 12 }, () => paragraph).join("\n\n");
    t.fake.enqueue({ text: long });
    wa.failNext(/\/messages$/, { status: 400, code: 130429, message: "(#130429) Rate limit hit" });
    const notification = wa.inbound(alice, text("tell me a long story"));
    await wa.deliver(hook, notification);
    await eventually(() => wa.sent.map((s) => s.text).join("\n\n").length >= long.length, "the whole reply", 10_000);
    const texts = wa.sent.map((s) => s.text);
    expect(texts.length).toBeGreaterThan(2);
    for (const part of texts) expect(part.length).toBeLessThanOrEqual(4096);
    expect(texts.join("\n\n")).toBe(long);
    expect(wa.sent[0]!.replyTo).toBe(idOf(notification));
  });

  it("sends a file the model delivers as an uploaded document", async () => {
    const { t, wa, hook } = await start();
    t.fake.respondWith(scriptedModel(CONVERSATIONS.find((c) => c.name === "send me that file")!));
    const write = wa.inbound(alice, text("Write a short report on our Q3 numbers to report.md"));
    await wa.deliver(hook, write);
    await replyTo(wa, idOf(write));
    const ask = wa.inbound(alice, text("send me that file"));
    await wa.deliver(hook, ask);
    const document = await eventually(() => wa.sent.find((s) => s.type === "document"), "the document", 10_000);
    const media = document.body.document as { id: string; filename: string; caption: string };
    expect(media).toMatchObject({ filename: "report.md", caption: "Your report" });
    expect(wa.uploads.get(media.id)!.data.toString()).toContain("Revenue up 12%");
  });

  it("refuses a button press by someone other than the one it was offered to", async () => {
    const { t, wa, hook } = await start({ access: { dmPolicy: "open" } });
    await wa.deliver(hook, wa.inbound(bob, text("/remind in 10m stretch")));
    await eventually(() => wa.sent.find((s) => /stretch/.test(s.text)), "the reminder confirmation");
    await wa.deliver(hook, wa.inbound(bob, text("/tasks")));
    const list = await eventually(() => wa.sent.find((s) => s.type === "interactive" && /Your tasks/.test(s.text)), "the task list with buttons");
    const buttons = (list.body.interactive as { action: { buttons: Array<{ reply: { id: string; title: string } }> } }).action.buttons;
    const cancel = buttons.find((b) => /Cancel/.test(b.reply.title))!;
    const live = () => t.gateway.feature(schedulerFeature)!.scheduler!.list({ kind: "operator" }, { everyone: true });

    await wa.deliver(hook, wa.inbound(mallory, buttonReply(cancel.reply.id, cancel.reply.title), { context: { id: list.id } }));
    await eventually(() => wa.sent.find((s) => s.to === mallory.waId && /not for you/.test(s.text)), "the refusal to mallory");
    expect(await live()).toHaveLength(1);

    await wa.deliver(hook, wa.inbound(bob, buttonReply(cancel.reply.id, cancel.reply.title), { context: { id: list.id } }));
    await eventually(() => wa.sent.find((s) => s.to === bob.waId && /Cancelled/.test(s.text)), "the cancellation");
    expect(await live()).toHaveLength(0);
  });
});
