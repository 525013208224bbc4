/**
 * The whole gateway with the Feishu channel against the fake Feishu and the fake LLM: long connection and
 * webhook delivery, groups, threads, media, fallbacks, redelivery and token expiry, end to end.
 */
import { afterEach, describe, expect, it } from "vitest";
import { feishuChannel } from "../../../src/channels/feishu/index.js";
import type { ConfigInput } from "../../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../../e2e/harness.js";
import { messageEvent, textEvent } from "../../fakes/feishu/events.js";
import { startFakeFeishu, type FakeFeishu } from "../../fakes/feishu/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";

let gw: TestGateway | undefined;
let feishu: FakeFeishu | undefined;
afterEach(() => closeInOrder([gw, feishu]).then(() => (gw = feishu = undefined)));

const ENCRYPT_KEY = "gateway-encrypt-key";
const bot = () => ({ key: "@_user_1", openId: feishu!.botOpenId, name: "Switchboard Bot" });

async function start(feishuSettings: Record<string, unknown> = {}, overrides: ConfigInput = {}): Promise<TestGateway> {
  feishu = await startFakeFeishu();
  gw = await startTestGateway({
    ...overrides,
    access: { dmPolicy: "open", groupPolicy: "open", ...overrides.access },
    channels: {
      web: { enabled: false },
      feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url, ...feishuSettings },
    },
  });
  return gw;
}

const cardText = (content: Record<string, unknown>) => JSON.stringify(content);

describe("Feishu through the gateway", () => {
  it("answers a direct message over the long connection, quoting it", async () => {
    const t = await start();
    t.fake.enqueue({ text: "Hello from the model" });
    const event = textEvent("hi bot", { chatId: "oc_dm_alice" });
    expect(await feishu!.pushSocket(event)).toEqual({ code: 200 });
    const [reply] = await feishu!.waitForSent(1);
    expect(reply).toMatchObject({ msgType: "interactive", chatId: "oc_dm_alice", replyTo: event.event.message.message_id });
    expect(cardText(reply!.content)).toContain("Hello from the model");
    expect(userTextsOf(t.fake.requests[0]!).at(-1)).toContain("hi bot");
  });

  it("answers a webhook event, and an encrypted and signed one", async () => {
    const plain = await start({ mode: "webhook", webhook: { verificationToken: "verify-token" } });
    plain.fake.enqueue({ text: "plain answer" });
    expect((await feishu!.pushWebhook(`${plain.url}/feishu/events`, textEvent("over http"))).status).toBe(200);
    expect(cardText((await feishu!.waitForSent(1))[0]!.content)).toContain("plain answer");
    await gw!.close();
    await feishu!.close();

    const encrypted = await start({ mode: "webhook", webhook: { verificationToken: "verify-token", encryptKey: ENCRYPT_KEY } });
    encrypted.fake.enqueue({ text: "encrypted answer" });
    const answer = await feishu!.pushWebhook(`${encrypted.url}/feishu/events`, textEvent("sealed"), { encryptKey: ENCRYPT_KEY });
    expect(answer.status).toBe(200);
    expect(cardText((await feishu!.waitForSent(1))[0]!.content)).toContain("encrypted answer");
    expect(userTextsOf(encrypted.fake.requests[0]!).at(-1)).toContain("sealed");
  });

  it("in a group answers only when mentioned, inside the thread, with a post's text and image", async () => {
    const t = await start({}, { llm: { vision: true } });
    t.fake.enqueue({ text: "Looked at it" });
    const group = { chatId: "oc_team", chatType: "group" as const };
    await feishu!.pushSocket(textEvent("just chatting among ourselves", group));
    const png = Buffer.from("89504e470d0a1a0a-fake-png", "utf8");
    const post = messageEvent({
      ...group,
      threadId: "omt_1",
      rootId: "om_thread_root",
      messageType: "post",
      content: {
        title: "Build",
        content: [
          [
            { tag: "at", user_id: "@_user_1", user_name: "Switchboard Bot" },
            { tag: "text", text: " is this " },
            { tag: "a", text: "build", href: "https://ci.example/1" },
            { tag: "text", text: " green?" },
          ],
          [{ tag: "img", image_key: "img_v3_screenshot" }],
        ],
      },
      mentions: [bot()],
    });
    feishu!.api.addResource(post.event.message.message_id, "img_v3_screenshot", "image", png, "image/png");
    feishu!.api.knowMessage("om_thread_root", "oc_team");
    await feishu!.pushSocket(post);

    const [reply] = await feishu!.waitForSent(1);
    expect(reply).toMatchObject({ replyTo: post.event.message.message_id, replyInThread: true, chatId: "oc_team" });
    expect(t.fake.requests).toHaveLength(1);
    const asked = JSON.stringify(t.fake.requests[0]!.body.messages);
    expect(asked).toContain("is this [build](https://ci.example/1) green?");
    expect(asked).toContain(png.toString("base64"));
    const messageId = post.event.message.message_id;
    expect(feishu!.api.resourceRequests).toEqual([{ messageId, fileKey: "img_v3_screenshot", type: "image" }]);
  });

  it("answers every message of a group configured to need no mention", async () => {
    const groups = [{ chat: "feishu:oc_open_room", requireMention: false }];
    const t = await start({}, { access: { groupPolicy: "allowlist", groups } });
    t.fake.enqueue({ text: "I hear you" });
    await feishu!.pushSocket(textEvent("anyone there?", { chatId: "oc_open_room", chatType: "group" }));
    expect(cardText((await feishu!.waitForSent(1))[0]!.content)).toContain("I hear you");
  });

  it("downloads a voice message and has it transcribed before the turn", async () => {
    const t = await start();
    t.fake.transcribeWith(() => ({ text: "remind me to call mom" }));
    t.fake.enqueue({ text: "Noted." });
    const voice = messageEvent({ chatId: "oc_dm_bob", messageType: "audio", content: { file_key: "file_v3_voice", duration: 3000 } });
    const bytes = Buffer.from("OggS-fake-opus-voice");
    feishu!.api.addResource(voice.event.message.message_id, "file_v3_voice", "file", bytes, "audio/ogg");
    await feishu!.pushSocket(voice);
    await feishu!.waitForSent(1);
    expect(t.fake.transcriptions.map((r) => r.audio.equals(bytes))).toEqual([true]);
    expect(JSON.stringify(t.fake.requests[0]!.body.messages)).toContain("remind me to call mom");
  });

  it("sends a reply with many tables as a post when the card is refused, and splits a long reply", async () => {
    const t = await start({ maxMessageLength: 1000 });
    const tables = Array.from({ length: 6 }, (_, i) => `| k | v |\n|---|---|\n| ${i} | x |`).join("\n\n");
    const long = Array.from({ length: 60 }, (_, i) => `line ${i} ${"lorem ipsum ".repeat(4)}`).join("\n");
    t.fake.enqueue({ text: tables }, { text: long });
    await feishu!.pushSocket(textEvent("tables please", { chatId: "oc_dm_carol" }));
    const [tableReply] = await feishu!.waitForSent(1);
    expect(tableReply!.msgType).toBe("post");
    await feishu!.pushSocket(textEvent("now something long", { chatId: "oc_dm_carol" }));
    await expect.poll(() => feishu!.api.sent.some((m) => cardText(m.content).includes("line 59")), { timeout: 10_000 }).toBe(true);
    const parts = feishu!.api.sent.slice(1);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    expect(parts.every((m) => m.msgType === "interactive" && cardText(m.content).length < 1500)).toBe(true);
  });

  it("runs one turn for an event pushed twice and again after a reconnect", async () => {
    const t = await start();
    t.fake.enqueue({ text: "first answer" }, { text: "sentinel answer" });
    const event = textEvent("once please", { chatId: "oc_dm_dave" });
    await feishu!.pushSocket(event);
    await feishu!.pushSocket(event);
    feishu!.socket.drop();
    await feishu!.socket.waitForConnections(2);
    await feishu!.pushSocket(event);
    // Same chat, so a duplicate turn would have been queued before this one.
    await feishu!.pushSocket(textEvent("sentinel", { chatId: "oc_dm_dave" }));
    const sent = await feishu!.waitForSent(2);
    const answers = sent.map((m) => cardText(m.content));
    expect(answers).toEqual([expect.stringContaining("first answer"), expect.stringContaining("sentinel answer")]);
    expect(t.fake.requests).toHaveLength(2);

    // The ids seen are stored: a gateway restarted on the same data still knows the event.
    await t.restart();
    t.fake.enqueue({ text: "after restart" });
    await feishu!.socket.waitForConnections(3);
    await feishu!.pushSocket(event);
    await feishu!.pushSocket(textEvent("new after restart", { chatId: "oc_dm_dave" }));
    expect(cardText((await feishu!.waitForSent(3))[2]!.content)).toContain("after restart");
    expect(t.fake.requests).toHaveLength(3);
  });

  it("answers once an event handled again after its reply went out, as after a kill before it was marked handled", async () => {
    const first = await start();
    first.fake.enqueue({ text: "the first answer" });
    const event = textEvent("answer me once", { chatId: "oc_dm_frank" });
    await feishu!.pushSocket(event);
    await feishu!.waitForSent(1);
    await first.close();

    // A gateway whose store never learnt that the event was handled: it runs the turn again.
    gw = await startTestGateway({
      access: { dmPolicy: "open", groupPolicy: "open" },
      channels: { web: { enabled: false }, feishu: { appId: feishu!.appId, appSecret: feishu!.appSecret, domain: feishu!.url } },
    });
    gw.fake.enqueue({ text: "a second answer" });
    await feishu!.socket.waitForConnections(2);
    await feishu!.pushSocket(event);
    await eventually(() => feishu!.api.repeatedUuids.length === 1, "the second reply to be sent");
    expect(gw.fake.requests).toHaveLength(1);
    // Feishu answered the second send with the first reply (same uuid): the chat shows one answer.
    expect(feishu!.api.sent.map((m) => cardText(m.content))).toEqual([expect.stringContaining("the first answer")]);
  });

  it("fetches a new token when the old one expires mid-run, and sends the reply once", async () => {
    const t = await start();
    t.fake.enqueue({ text: "before expiry" }, { text: "after expiry" });
    await feishu!.pushSocket(textEvent("one", { chatId: "oc_dm_erin" }));
    await feishu!.waitForSent(1);
    const issued = feishu!.api.tokensIssued;
    feishu!.api.expireTokens();
    await feishu!.pushSocket(textEvent("two", { chatId: "oc_dm_erin" }));
    const sent = await feishu!.waitForSent(2);
    expect(sent).toHaveLength(2);
    expect(cardText(sent[1]!.content)).toContain("after expiry");
    expect(feishu!.api.tokensIssued).toBe(issued + 1);
    // Neither the app secret nor a tenant token ever reaches the log.
    const logged = JSON.stringify(t.logs);
    expect(logged).not.toContain(feishu!.appSecret);
    expect(logged).not.toMatch(/t-fake-\d/);
  });

  it("switchboard doctor fetches a token and the bot's info, and names the failure otherwise", async () => {
    const t = await start();
    const report = await feishuChannel.check(t.config.channels.feishu, t.config);
    expect(report).toBe('tenant access token obtained (valid 120 min); bot "Switchboard Bot" (ou_bot_switchboard); events by long connection');
    const feishuConfig = { ...t.config.channels.feishu, appSecret: "wrong-secret" };
    await expect(feishuChannel.check(feishuConfig, t.config)).rejects.toThrow(/10014: app secret invalid/);
  });
});
