/**
 * generate_image and edit_image end to end: the whole gateway, the fake model calling the tools, a fake image
 * endpoint answering with a real PNG, and the picture arriving as a photo on Telegram, Discord, Feishu and WebChat.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../fakes/discord/index.js";
import { textEvent } from "../fakes/feishu/events.js";
import { startFakeFeishu, type FakeFeishu } from "../fakes/feishu/index.js";
import { startFakeMediaAI, type FakeMediaAI, type ImageReply } from "../fakes/media-ai-server.js";
import { solidPng } from "../fakes/media-ai-fixtures.js";
import { startFakeTelegram } from "../fakes/telegram/server.js";
import { directChat, messageOf, text } from "../fakes/telegram/updates.js";
import { lastToolOutput, placeWorkspaceFile } from "../media/delivery-script.js";
import { closeInOrder } from "../helpers/close.js";
import type { FakeOpenAI } from "../fakes/openai-server.js";

let t: TestGateway | undefined;
let platform: { close(): Promise<unknown> } | undefined;
let ai: FakeMediaAI | undefined;
afterEach(() => closeInOrder([t, platform, ai]).then(() => (t = platform = ai = undefined)));

let png: Buffer;
beforeAll(() => {
  png = solidPng();
});

interface DrawResult {
  ok: boolean;
  paths: string[];
  receipts: Array<{ status: string; type: string; message_id: string | null }>;
}

function scriptDraw(fake: FakeOpenAI, args: Record<string, unknown> = { prompt: "a red square", size: "64x64" }, tool = "generate_image"): void {
  fake.enqueue(
    { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: tool } }] },
    { toolCalls: [{ name: tool, arguments: args }] },
    { text: "Here it is." },
  );
}

async function withImages(overrides: Record<string, unknown>): Promise<TestGateway> {
  ai = await startFakeMediaAI(png);
  t = await startTestGateway({ ...overrides, images: { baseUrl: ai.url, apiKey: ai.apiKey, model: "fake-image" } });
  return t;
}

describe("generate_image", () => {
  it("delivers a photo on Telegram, with its receipt", async () => {
    const tg = await startFakeTelegram();
    platform = tg;
    const t = await withImages({ channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } }, access: { allowFrom: [`telegram:${directChat().id}`] } });
    scriptDraw(t.fake);
    const update = text(directChat(), "draw a red square");
    tg.addUpdate(update);
    await tg.waitFor(() => tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === messageOf(update).message_id), 15_000);

    const photo = tg.sent.find((s) => s.method === "sendPhoto");
    expect(photo?.file?.data.equals(png)).toBe(true);
    const result = lastToolOutput<DrawResult>(t.fake);
    expect(result).toMatchObject({ ok: true, receipts: [{ status: "delivered", type: "image", message_id: String(photo!.messageId) }] });
    expect(ai!.images).toEqual([{ path: "generations", prompt: "a red square", size: "64x64" }]);
  });

  it("delivers a photo on Discord", async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    platform = discord;
    const alice = user("alice");
    const t = await withImages({ channels: { discord: { token: discord.token, apiUrl: discord.apiUrl } }, access: { allowFrom: [`discord:${alice.id}`] } });
    const dmId = discord.dmChannelWith(alice).id;
    scriptDraw(t.fake, { prompt: "two squares", n: 2 });
    discord.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dmId, author: alice, content: "draw two squares" }));
    await until(() => discord.messages.some((m) => m.payload.content === "Here it is."), "the final answer");

    const uploads = discord.messages.filter((m) => m.files.length > 0);
    expect(uploads).toHaveLength(2);
    expect(uploads.every((m) => m.files[0]!.bytes.equals(png))).toBe(true);
    expect(lastToolOutput<DrawResult>(t.fake).receipts.map((r) => r.message_id)).toEqual(uploads.map((m) => m.id));
  });

  it("delivers an image message on Feishu", async () => {
    const feishu: FakeFeishu = await startFakeFeishu();
    platform = feishu;
    const t = await withImages({
      access: { allowFrom: ["feishu:ou_alice"] },
      channels: { web: { enabled: false }, feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url } },
    });
    scriptDraw(t.fake);
    await feishu.pushSocket(textEvent("draw", { chatId: "oc_dm_alice" }));
    await t.fake.waitForRequests(3, 15_000);

    const image = feishu.api.sent.find((s) => s.msgType === "image");
    expect(feishu.api.images.get(String(image?.content.image_key))?.bytes.equals(png)).toBe(true);
    expect(lastToolOutput<DrawResult>(t.fake).receipts[0]).toMatchObject({ status: "delivered", message_id: image!.messageId });
  });

  it("delivers an image into the WebChat conversation; a URL answer on the endpoint's own host is fetched", async () => {
    const t = await withImages({});
    ai!.drawWith((): ImageReply => ({ as: "url" }));
    scriptDraw(t.fake);
    const answer = await t.post({ chatId: "draw-chat", userId: "alice", text: "draw" });
    const replies = answer.body.replies as Array<{ text: string; attachments: Array<{ url: string }> }>;
    const [attachment] = replies.flatMap((r) => r.attachments);
    const download = await fetch(`${t.url}${attachment!.url}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
  });

  it("refuses a URL answer on another host, and a failing endpoint, with errors the model can read", async () => {
    const t = await withImages({});
    ai!.drawWith((): ImageReply => ({ as: "url", host: "169.254.169.254" }));
    scriptDraw(t.fake);
    await t.post({ chatId: "ssrf-chat", userId: "alice", text: "draw" });
    const refused = t.fake.lastToolResults().at(-1)!.content;
    expect(JSON.stringify(refused)).toContain("images are fetched only from");

    ai!.drawWith((): ImageReply => ({ status: 500 }));
    scriptDraw(t.fake);
    await t.post({ chatId: "ssrf-chat", userId: "alice", text: "draw again" });
    expect(JSON.stringify(t.fake.lastToolResults().at(-1)!.content)).toContain("HTTP 500");
    expect(JSON.stringify(t.logs)).not.toContain(ai!.apiKey);
  });
});

describe("edit_image", () => {
  it("sends the workspace image to /images/edits as multipart and delivers the result", async () => {
    const t = await withImages({});
    await placeWorkspaceFile(t.config.dataDir, "web:edit-chat", "photo.png", png);
    scriptDraw(t.fake, { image: "photo.png", prompt: "make it blue" }, "edit_image");
    await t.post({ chatId: "edit-chat", userId: "alice", text: "make it blue" });
    expect(ai!.images[0]).toMatchObject({ path: "edits", prompt: "make it blue", image: { name: "photo.png", type: "image/png" } });
    expect(ai!.images[0]!.image!.data.equals(png)).toBe(true);
    expect(lastToolOutput<DrawResult>(t.fake)).toMatchObject({ ok: true, receipts: [{ status: "delivered", type: "image" }] });
  });

  it("refuses a path outside the workspace", async () => {
    const t = await withImages({});
    scriptDraw(t.fake, { image: "../../etc/passwd", prompt: "x" }, "edit_image");
    await t.post({ chatId: "edit-chat", userId: "alice", text: "edit" });
    expect(JSON.stringify(t.fake.lastToolResults().at(-1)!.content)).toMatch(/outside|denied/i);
    expect(ai!.images).toHaveLength(0);
  });
});
