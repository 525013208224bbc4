/** The QQ channel on its own against the fake platform: gateway sessions, webhook mode, files, tokens, refusals. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicKey, verify } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { QqChannel } from "../../../src/channels/qq/channel.js";
import { checkQq } from "../../../src/channels/qq/check.js";
import { completeSettings, qqConfigSchema } from "../../../src/channels/qq/config.js";
import type { ButtonPress, InboundMessage } from "../../../src/core/types.js";
import type { SendError } from "../../../src/core/send-error.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { platformKey, startFakeQq, type FakeQq } from "../../fakes/qq/index.js";
import { closeInOrder } from "../../helpers/close.js";
import { eventually } from "../../helpers/wait.js";
import { memoryStore, silentLog } from "../../scheduler/helpers.js";

let qq: FakeQq | undefined;
let channel: QqChannel | undefined;
let http: HttpServer | undefined;
afterEach(() => closeInOrder([channel && { close: () => channel!.stop() }, http && { close: () => http!.stop() }, qq]).then(() => (qq = channel = http = undefined)));

async function startChannel(settings: Record<string, unknown> = {}): Promise<{ received: InboundMessage[]; url: string }> {
  qq ??= await startFakeQq();
  http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
  channel = new QqChannel({ settings: completeSettings(qqConfigSchema.parse({ ...qq.settings(), ...settings })), store: memoryStore(), log: silentLog, http, backoff: { baseMs: 10, maxMs: 50 } });
  const received: InboundMessage[] = [];
  await channel.start(async (message) => {
    received.push(message);
    return "answered";
  });
  const { url } = await http.start();
  return { received, url };
}

describe("the QQ channel", () => {
  it("resumes its session with the last sequence after a drop, and identifies anew after op 9", async () => {
    const { received } = await startChannel();
    await qq!.gateway.waitFor(() => qq!.gateway.identifies.length === 1, "Identify");
    qq!.dispatch(qq!.c2c("one"));
    await eventually(() => received.length === 1, "the first message");
    qq!.gateway.drop();
    await qq!.gateway.waitFor(() => qq!.gateway.resumes.length === 1, "Resume");
    expect(qq!.gateway.resumes[0]!.seq).toBe(2);
    // A session the platform no longer knows: op 9, then Identify.
    qq!.gateway.forgetSessions();
    qq!.gateway.askReconnect();
    await qq!.gateway.waitFor(() => qq!.gateway.identifies.length === 2, "a new Identify");
    await eventually(() => channel!.status().connected, "connected");
    qq!.dispatch(qq!.direct("in a DM"));
    await eventually(() => received.length === 2, "the DM");
    expect(received[1]).toMatchObject({ chat: { id: "dm:5555", type: "direct" }, text: "in a DM", sender: { id: "1111", name: "alice" } });
  });

  it("in webhook mode answers the callback validation, takes signed events and refuses unsigned ones", async () => {
    const { received, url } = await startChannel({ mode: "webhook" });
    const hook = `${url}/qq/callback`;
    const validation = await qq!.pushWebhook(hook, { op: 13, d: { plain_token: "Arq0D5A61EgUu4OxUvOp", event_ts: "1725442341" } });
    const answer = validation.body as { plain_token: string; signature: string };
    expect(answer.plain_token).toBe("Arq0D5A61EgUu4OxUvOp");
    const publicKey = createPublicKey(platformKey(qq!.appSecret));
    expect(verify(null, Buffer.from("1725442341Arq0D5A61EgUu4OxUvOp"), publicKey, Buffer.from(answer.signature, "hex"))).toBe(true);
    const event = qq!.groupAt("over the webhook");
    expect(await qq!.pushWebhook(hook, qq!.webhookPayload(event))).toEqual({ status: 200, body: { op: 12, d: 0 } });
    expect((await qq!.pushWebhook(hook, qq!.webhookPayload(qq!.c2c("forged")), { secret: "someone-elses-secret" })).status).toBe(401);
    expect((await fetch(hook, { method: "POST", body: "{}" })).status).toBe(401);
    await eventually(() => received.length === 1, "the signed event");
    expect(received[0]).toMatchObject({ text: "over the webhook", chat: { type: "group" } });
  });

  it("sends an image by upload (file_type 1) as a rich media message, and refuses file types QQ does not take", async () => {
    const { received } = await startChannel();
    await qq!.gateway.waitFor(() => qq!.gateway.identifies.length === 1, "Identify");
    const event = qq!.c2c("send me a picture");
    qq!.dispatch(event);
    await eventually(() => received.length === 1, "the message");
    const dir = await mkdtemp(join(tmpdir(), "switchboard-qq-"));
    const png = join(dir, "chart.png");
    await writeFile(png, Buffer.from("89504e470d0a1a0a-fake-png"));
    const to = { channel: "qq", chatId: event.chat };
    await channel!.sendFile(to, { path: png, kind: "image", name: "chart.png" }, { replyTo: event.data.id });
    const [media] = qq!.api.sent;
    expect(media).toMatchObject({ msg_type: 7, msg_id: event.data.id, msg_seq: 1 });
    expect(qq!.api.uploads.get(media!.file_info!)).toMatchObject({ fileType: 1, bytes: Buffer.from("89504e470d0a1a0a-fake-png") });
    const doc = join(dir, "notes.txt");
    await writeFile(doc, "notes");
    const refused = (await channel!.sendFile(to, { path: doc, kind: "file", name: "notes.txt" }).catch((e: unknown) => e)) as SendError;
    expect(refused.kind).toBe("rejected");
    expect(refused.message).toContain("images and video only");
  });

  it("fetches a new token when the old one is refused, and classifies failures", async () => {
    const { received } = await startChannel();
    await qq!.gateway.waitFor(() => qq!.gateway.identifies.length === 1, "Identify");
    const event = qq!.c2c("hi");
    qq!.dispatch(event);
    await eventually(() => received.length === 1, "the message");
    const to = { channel: "qq", chatId: event.chat };
    qq!.api.expireTokens();
    await channel!.sendText(to, "after expiry", { replyTo: event.data.id, idempotencyKey: "send-1" });
    expect(qq!.api.tokensIssued).toBe(2);
    qq!.api.fail(/messages$/, 1, 503);
    expect(((await channel!.sendText(to, "x", { replyTo: event.data.id, fromPart: 0 }).catch((e: unknown) => e)) as SendError).kind).toBe("unavailable");
    qq!.api.fail(/messages$/, 1, 429);
    expect(((await channel!.sendText(to, "x", { replyTo: event.data.id }).catch((e: unknown) => e)) as SendError).kind).toBe("rate_limited");
    // Another attempt of the same send posts with the same msg_seq: QQ's duplicate, so it arrived before and counts as sent.
    expect(await channel!.sendText(to, "after expiry", { replyTo: event.data.id, idempotencyKey: "send-1" })).toHaveLength(1);
    expect(qq!.api.sent.map((m) => m.content)).toEqual(["after expiry"]);
    // A new send takes a msg_seq no attempt has used (the failed ones' stay taken), so it is posted.
    await channel!.sendText(to, "a new one", { replyTo: event.data.id });
    expect(qq!.api.sent.map((m) => [m.content, m.msg_seq])).toEqual([["after expiry", 1], ["a new one", 4]]);
  });

  it("refuses to start with wrong credentials, and doctor says which call failed", async () => {
    qq = await startFakeQq();
    await expect(checkQq(qqConfigSchema.parse(qq.settings()))).resolves.toContain("app access token obtained");
    await expect(startChannel({ appSecret: "wrong-secret" })).rejects.toThrow("QQ refused the app credentials");
    await expect(checkQq(qqConfigSchema.parse({ ...qq.settings(), appSecret: "wrong" }))).rejects.toThrow("QQ error 100016");
  });

  it("uses the sandbox API with sandbox: true unless QQ_API_URL names one", () => {
    expect(completeSettings(qqConfigSchema.parse({ appId: "1", appSecret: "s", sandbox: true })).apiUrl).toBe("https://sandbox.api.sgroup.qq.com");
    expect(completeSettings(qqConfigSchema.parse({ appId: "1", appSecret: "s" })).apiUrl).toBe("https://api.sgroup.qq.com");
    expect(completeSettings(qqConfigSchema.parse({ appId: "1", appSecret: "s", sandbox: true, apiUrl: "http://127.0.0.1:9" })).apiUrl).toBe("http://127.0.0.1:9");
  });

  it("starts through an outage of the token service and reports it in status(), retrying", async () => {
    qq = await startFakeQq();
    const closed = await startFakeQq();
    await closed.close();
    // The token service is down at start: start() resolves and keeps retrying.
    const down = await startChannel({ tokenUrl: closed.tokenUrl });
    expect(down.received).toEqual([]);
    await eventually(() => channel!.status().detail?.startsWith("reconnecting"), "the outage in status()");
    expect(channel!.status().connected).toBe(false);
  });

  it("with markdown, puts buttons in a keyboard under the last part, and hands a press over once, acknowledged", async () => {
    qq = await startFakeQq();
    qq.api.markdownAllowed = true;
    http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
    channel = new QqChannel({ settings: completeSettings(qqConfigSchema.parse({ ...qq.settings(), markdown: true })), store: memoryStore(), log: silentLog, http });
    const received: InboundMessage[] = [];
    const presses: ButtonPress[] = [];
    await channel.start(
      async (message) => {
        received.push(message);
        return "answered";
      },
      async (press) => void presses.push(press),
    );
    expect(channel.capabilities.buttons).toBe(true);
    await qq.gateway.waitFor(() => qq!.gateway.identifies.length === 1, "Identify");
    expect(qq.gateway.identifies[0]!.intents & (1 << 26)).toBeTruthy();
    const event = qq.c2c("deploy?");
    qq.dispatch(event);
    await eventually(() => received.length === 1, "the message");
    await channel.sendText({ channel: "qq", chatId: event.chat }, "Deploy now?", { replyTo: event.data.id, buttons: [[{ label: "Deploy", actionId: "act_deploy", style: "primary" }, { label: "Cancel", actionId: "act_cancel" }]] });
    expect(qq.api.sent[0]).toMatchObject({ msg_type: 2, markdown: "Deploy now?", keyboard: [["act_deploy", "act_cancel"]] });
    const press = qq.interaction("act_deploy");
    qq.dispatch(press);
    qq.dispatch(press);
    await eventually(() => qq!.api.interactionAcks.length === 2 && presses.length === 1, "the press acknowledged and handed over");
    expect(presses[0]).toMatchObject({ actionId: "act_deploy", chat: { id: event.chat, type: "direct" } });
    expect(qq.api.interactionAcks[0]).toEqual({ id: press.data.id, code: 0 });
  });
});
