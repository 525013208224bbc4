/** The whole gateway with the Telegram channel against the fake Bot API and the fake LLM. */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { faults, startFakeTelegram, type FakeTelegram, type SentRecord } from "../../fakes/telegram/server.js";
import { alice, bob, directChat, forumChat, groupChat, messageOf, messageUpdate, text, topicText } from "../../fakes/telegram/updates.js";
import { eventually } from "./harness.js";
import { closeInOrder } from "../../helpers/close.js";
import { TYPING_DELAY_MS } from "../../../src/gateway/acknowledge.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const WEBHOOK_URL = "https://bot.example.test/telegram/webhook";

async function start(telegram: Record<string, unknown> = {}, extra: ConfigInput = {}): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    ...extra,
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, ...telegram } },
    access: {
      allowFrom: [`telegram:${alice.id}`, `telegram:${bob.id}`],
      groups: [{ chat: `telegram:${groupChat.id}` }, { chat: `telegram:${forumChat.id}` }],
    },
  });
  return { t, tg };
}

const replyTo = (fake: FakeTelegram, update: Record<string, unknown>): Promise<SentRecord> =>
  fake.waitFor(() => fake.sent.find((s) => s.replyTo === messageOf(update).message_id), 10_000);

describe("Telegram through the gateway", () => {
  it("answers a direct message by long polling: typing first, then the model's Markdown as HTML", async () => {
    const { t, tg } = await start();
    // A reply slow enough for "typing" (quicker ones need none, see the next test).
    t.fake.enqueue({ text: "Hello **Alice**, here is `code`.", delayMs: 2 * TYPING_DELAY_MS });
    const update = text(directChat(), "hi, who are you?");
    tg.addUpdate(update);
    const reply = await replyTo(tg, update);
    expect(reply).toMatchObject({ chatId: String(alice.id), text: "Hello <b>Alice</b>, here is <code>code</code>.", parseMode: "HTML" });
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("hi, who are you?");
    expect(tg.chatActions[0]).toEqual({ chatId: String(alice.id), action: "typing" });
    expect(JSON.stringify(t.logs)).not.toContain(tg.token);
  });

  it("shows no typing for a reply quicker than the typing delay", async () => {
    const { t, tg } = await start();
    t.fake.enqueue({ text: "Quick." });
    const update = text(directChat(), "ping");
    const started = performance.now();
    tg.addUpdate(update);
    await replyTo(tg, update);
    // Only meaningful when the turn was in fact quicker than the delay; the machine may be slow.
    if (performance.now() - started < TYPING_DELAY_MS) expect(tg.chatActions).toHaveLength(0);
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
  });

  it("answers a direct message pushed by webhook", async () => {
    const { t, tg } = await start({ mode: "webhook", webhook: { url: WEBHOOK_URL } });
    await tg.waitFor(() => tg.webhook);
    t.fake.enqueue({ text: "Got it via webhook." });
    const update = { update_id: 1, ...text(directChat(), "over the webhook") };
    expect(await tg.pushWebhook(update, { url: `${t.url}/telegram/webhook` })).toBe(200);
    expect(await replyTo(tg, update)).toMatchObject({ text: "Got it via webhook." });
    expect(tg.callsOf("getUpdates")).toHaveLength(0);
  });

  it("in a group: ignores but remembers unaddressed chatter; answers a mention, a reply to the bot and /cmd@bot", async () => {
    const { t, tg } = await start();
    t.fake.respondWith(() => ({ text: "noted" }));
    tg.addUpdate(text(groupChat, "the deploy failed at 3pm", { from: bob }));
    tg.addUpdate(text(groupChat, "/ask@some_other_bot what now?", { from: bob }));
    const mention = text(groupChat, "@switchboard_test_bot what failed?");
    tg.addUpdate(mention);
    const first = await replyTo(tg, mention);
    expect(first).toMatchObject({ chatId: String(groupChat.id), text: "noted" });
    expect(t.fake.requests).toHaveLength(1);
    const prompt = JSON.stringify(t.fake.requests[0]!.body.messages);
    expect(prompt).toContain("the deploy failed at 3pm");
    expect(prompt).toContain("what failed?");
    expect(prompt).not.toContain("@switchboard_test_bot");

    const replyToBot = text(groupChat, "and why?", { fields: { reply_to_message: { message_id: first.messageId, date: 1, chat: groupChat, from: { id: tg.bot.id, is_bot: true, first_name: "Switchboard", username: tg.bot.username }, text: "noted" } } });
    tg.addUpdate(replyToBot);
    await replyTo(tg, replyToBot);
    const command = text(groupChat, "/ask@switchboard_test_bot summarize", { from: bob });
    tg.addUpdate(command);
    await replyTo(tg, command);
    expect(t.fake.requests).toHaveLength(3);
    expect(userTextsOf(t.fake.requests[2]!).at(-1)).toContain("/ask summarize");
  });

  it("answers a forum topic message inside the same topic", async () => {
    const { t, tg } = await start();
    t.fake.enqueue({ text: "topic answer" });
    const update = topicText(forumChat, 77, "@switchboard_test_bot hello topic");
    tg.addUpdate(update);
    expect(await replyTo(tg, update)).toMatchObject({ chatId: String(forumChat.id), threadId: 77, text: "topic answer" });
  });

  it("shows a photo to a vision model through the adapter's download, and describes a voice message", async () => {
    const { t, tg } = await start({}, { llm: { vision: true } });
    t.fake.respondWith(() => ({ text: "I see it." }));
    const photoBytes = Buffer.from("\x89PNG fake image bytes", "latin1");
    const photo = tg.addFile(photoBytes);
    const withPhoto = messageUpdate(directChat(), { photo: [{ ...photo, width: 640, height: 480 }], caption: "what is this?" });
    tg.addUpdate(withPhoto);
    await replyTo(tg, withPhoto);
    expect(JSON.stringify(t.fake.requests[0]!.body.messages)).toContain(photoBytes.toString("base64"));

    const voice = tg.addFile(Buffer.from("OggS voice"));
    const withVoice = messageUpdate(directChat(), { voice: { ...voice, duration: 4, mime_type: "audio/ogg" } });
    tg.addUpdate(withVoice);
    await replyTo(tg, withVoice);
    expect(userTextsOf(t.fake.requests.at(-1)!).join("\n")).toMatch(/voice: "audio\/ogg", 10 B, 4 s/);
  });

  it("runs one turn for an update delivered twice, and again none after a restart", async () => {
    const { t, tg } = await start({ mode: "webhook", webhook: { url: WEBHOOK_URL } });
    t.fake.respondWith(() => ({ text: "once" }));
    await tg.waitFor(() => tg.webhook);
    const route = `${t.url}/telegram/webhook`;
    const update = { update_id: 10, ...text(directChat(), "only once please") };
    expect(await tg.pushWebhook(update, { url: route })).toBe(200);
    await replyTo(tg, update);
    expect(await tg.pushWebhook(update, { url: route })).toBe(200);
    await t.restart();
    await tg.waitFor(() => tg.callsOf("setWebhook").length === 2);
    expect(await tg.pushWebhook(update, { url: `${t.url}/telegram/webhook` })).toBe(200);
    // A later message proves the redeliveries were processed (and dropped) before it.
    const later = { update_id: 11, ...text(directChat(), "next") };
    expect(await tg.pushWebhook(later, { url: `${t.url}/telegram/webhook` })).toBe(200);
    await replyTo(tg, later);
    expect(t.fake.requests).toHaveLength(2);
    expect(tg.sent.filter((s) => s.text === "once")).toHaveLength(2);
  });

  it("delivers exactly one reply when Telegram first answers 429", async () => {
    const { t, tg } = await start();
    t.fake.enqueue({ text: "patient reply" });
    tg.fail("sendMessage", faults.tooManyRequests(1));
    const update = text(directChat(), "hello");
    tg.addUpdate(update);
    await replyTo(tg, update);
    expect(tg.callsOf("sendMessage")).toHaveLength(2);
    expect(tg.sent.filter((s) => s.text === "patient reply")).toHaveLength(1);
  });

  it("reports a 409 conflict in /readyz", async () => {
    const { t, tg } = await start({}, {});
    await tg.waitFor(() => tg.callsOf("getUpdates").length > 0);
    tg.fail("getUpdates", faults.conflict(), 100);
    const readiness = await eventually(async () => {
      const body = (await (await fetch(`${t.url}/readyz`)).json()) as { components: Record<string, { ok: boolean; detail?: string }> };
      return body.components["channel:telegram"]?.detail?.includes("409") ? body : undefined;
    }, "409 in readiness");
    expect(readiness.components["channel:telegram"]).toMatchObject({ ok: false });
  });
});
