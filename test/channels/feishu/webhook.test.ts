import { afterEach, describe, expect, it } from "vitest";
import { otherEvent, textEvent } from "../../fakes/feishu/events.js";
import { encryptForFeishu } from "../../fakes/feishu/webhook-push.js";
import { ENCRYPT_KEY, startRig, type Rig } from "./harness.js";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const challengeRequest = (token = "verify-token") => ({ challenge: "ch-4f2a", token, type: "url_verification" });
const refusals = (r: Rig) => r.logs.filter((l) => l.msg === "refused a Feishu webhook request").map((l) => l.reason);

describe("Feishu webhook, plain", () => {
  it("answers url_verification with the challenge", async () => {
    rig = await startRig({ mode: "webhook" });
    expect(await rig.fake.pushWebhook(rig.webhookUrl, challengeRequest())).toEqual({ status: 200, body: { challenge: "ch-4f2a" } });
  });

  it("refuses url_verification and events carrying a wrong verification token", async () => {
    rig = await startRig({ mode: "webhook" });
    expect((await rig.fake.pushWebhook(rig.webhookUrl, challengeRequest("guess"))).status).toBe(401);
    expect((await rig.fake.pushWebhook(rig.webhookUrl, textEvent("forged", { token: "guess" }))).status).toBe(401);
    expect((await rig.fake.pushWebhook(rig.webhookUrl, textEvent("no token", { token: "" }))).status).toBe(401);
    await rig.fake.pushWebhook(rig.webhookUrl, textEvent("genuine"));
    const received = await rig.waitForReceived(1);
    expect(received.map((m) => m.text)).toEqual(["genuine"]);
    expect(refusals(rig)).toEqual(Array(3).fill("the verification token is wrong or missing"));
  });

  it("acknowledges before the message is handled, within Feishu's 3 s", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    rig = await startRig({ mode: "webhook", outcome: () => held.then(() => "answered" as const) });
    const answer = await rig.fake.pushWebhook(rig.webhookUrl, textEvent("take your time"));
    expect(answer).toEqual({ status: 200, body: {} });
    await rig.waitForReceived(1);
    release();
  });

  it("acknowledges and ignores event types it does not handle, and messages pushed twice", async () => {
    rig = await startRig({ mode: "webhook" });
    expect((await rig.fake.pushWebhook(rig.webhookUrl, otherEvent("im.chat.member.bot.added_v1"))).status).toBe(200);
    const event = textEvent("once");
    expect((await rig.fake.pushWebhook(rig.webhookUrl, event)).status).toBe(200);
    expect((await rig.fake.pushWebhook(rig.webhookUrl, event)).status).toBe(200);
    await rig.fake.pushWebhook(rig.webhookUrl, textEvent("sentinel"));
    const received = await rig.waitForReceived(2);
    expect(received.map((m) => m.text)).toEqual(["once", "sentinel"]);
  });

  it("answers 503 while the channel is stopped, so Feishu pushes the event again later", async () => {
    rig = await startRig({ mode: "webhook" });
    await rig.channel.stop();
    expect((await rig.fake.pushWebhook(rig.webhookUrl, textEvent("too early"))).status).toBe(503);
    expect(rig.received).toEqual([]);
  });

  it("refuses bodies that are not JSON objects, and encrypted bodies it has no key for", async () => {
    rig = await startRig({ mode: "webhook" });
    const push = (rawBody: string) => rig!.fake.pushWebhook(rig!.webhookUrl, {}, { rawBody });
    expect((await push("not json")).status).toBe(400);
    expect((await push("[1,2]")).status).toBe(400);
    expect((await push(JSON.stringify({ encrypt: encryptForFeishu("{}", "some key") }))).status).toBe(400);
    expect(refusals(rig)).toEqual([
      "the body is not a JSON object",
      "the body is not a JSON object",
      "the body is encrypted but channels.feishu.webhook.encryptKey is not set",
    ]);
  });
});

describe("Feishu webhook, encrypted and signed", () => {
  it("answers an encrypted url_verification, signed or not", async () => {
    rig = await startRig({ mode: "webhook", encrypted: true });
    const signed = await rig.fake.pushWebhook(rig.webhookUrl, challengeRequest(), { encryptKey: ENCRYPT_KEY });
    const unsigned = await rig.fake.pushWebhook(rig.webhookUrl, challengeRequest(), { encryptKey: ENCRYPT_KEY, unsigned: true });
    expect([signed, unsigned]).toEqual([
      { status: 200, body: { challenge: "ch-4f2a" } },
      { status: 200, body: { challenge: "ch-4f2a" } },
    ]);
  });

  it("decrypts a signed event and hands the message over", async () => {
    rig = await startRig({ mode: "webhook", encrypted: true });
    expect((await rig.fake.pushWebhook(rig.webhookUrl, textEvent("secret hello"), { encryptKey: ENCRYPT_KEY })).status).toBe(200);
    const [message] = await rig.waitForReceived(1);
    expect(message!.text).toBe("secret hello");
  });

  it("refuses a bad signature, an unsigned event and a body encrypted with another key, and logs each", async () => {
    rig = await startRig({ mode: "webhook", encrypted: true });
    const event = textEvent("forged");
    const answers = [
      await rig.fake.pushWebhook(rig.webhookUrl, event, { encryptKey: ENCRYPT_KEY, signWith: "wrong key" }),
      await rig.fake.pushWebhook(rig.webhookUrl, event, { encryptKey: ENCRYPT_KEY, unsigned: true }),
      await rig.fake.pushWebhook(rig.webhookUrl, event, { encryptKey: "another key", signWith: ENCRYPT_KEY }),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 401, 400]);
    expect(refusals(rig)).toEqual([
      "the X-Lark-Signature header does not match the body",
      "the event is not signed although an encrypt key is set",
      "the body cannot be decrypted with the configured encrypt key",
    ]);
    await rig.fake.pushWebhook(rig.webhookUrl, textEvent("genuine"), { encryptKey: ENCRYPT_KEY });
    expect((await rig.waitForReceived(1)).map((m) => m.text)).toEqual(["genuine"]);
  });

  it("verifies the signature over the body as sent, not over a re-serialization", async () => {
    rig = await startRig({ mode: "webhook", encrypted: true });
    // Extra spacing survives in the raw body; JSON.stringify(JSON.parse(body)) would differ and fail to verify.
    const rawBody = `{ "encrypt" :  ${JSON.stringify(encryptForFeishu(JSON.stringify(textEvent("spaced out")), ENCRYPT_KEY))} }`;
    const answer = await rig.fake.pushWebhook(rig.webhookUrl, {}, { rawBody, signWith: ENCRYPT_KEY });
    expect(answer.status).toBe(200);
    expect((await rig.waitForReceived(1)).map((m) => m.text)).toEqual(["spaced out"]);
  });
});
