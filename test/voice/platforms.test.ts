/**
 * Spoken replies as native voice messages on Discord (flags IS_VOICE_MESSAGE, duration and waveform) and Feishu
 * (an opus upload with its duration, sent as `audio`), beside the text reply, after /voice on.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { messagePayload, startFakeDiscord, until, user, type FakeDiscord } from "../fakes/discord/index.js";
import { textEvent } from "../fakes/feishu/events.js";
import { startFakeFeishu, type FakeFeishu } from "../fakes/feishu/index.js";
import { startFakeMediaAI, type FakeMediaAI } from "../fakes/media-ai-server.js";
import { solidPng, toneAudio } from "../fakes/media-ai-fixtures.js";
import { closeInOrder } from "../helpers/close.js";
import { eventually } from "../helpers/wait.js";

let t: TestGateway | undefined;
let platform: { close(): Promise<unknown> } | undefined;
let ai: FakeMediaAI | undefined;
afterEach(() => closeInOrder([t, platform, ai]).then(() => (t = platform = ai = undefined)));

let speech: Buffer;
beforeAll(() => {
  speech = toneAudio(3, "wav");
});

async function withSpeech(overrides: Record<string, unknown>): Promise<TestGateway> {
  ai = await startFakeMediaAI(solidPng());
  ai.speakWith(() => ({ audio: speech }));
  t = await startTestGateway({ ...overrides, tts: { baseUrl: ai.url, apiKey: ai.apiKey, format: "wav" } });
  t.fake.respondWith(() => ({ text: "The forecast is sunny." }));
  return t;
}

const IS_VOICE_MESSAGE = 1 << 13;

describe("voice messages", () => {
  it("Discord: the text, then a voice message with the flag, its duration and a waveform of one point per 100 ms", async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    platform = discord;
    const alice = user("alice");
    await withSpeech({ channels: { discord: { token: discord.token, apiUrl: discord.apiUrl } }, access: { allowFrom: [`discord:${alice.id}`] } });
    const dmId = discord.dmChannelWith(alice).id;
    discord.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dmId, author: alice, content: "/voice on" }));
    await until(() => discord.messages.some((m) => String(m.payload.content).startsWith("Done:")), "the /voice answer");
    discord.dispatch("MESSAGE_CREATE", messagePayload({ channelId: dmId, author: alice, content: "weather?" }));
    const voice = await eventually(() => discord.messages.find((m) => m.files.length > 0), "the voice message", 15_000);

    const text = discord.messages.find((m) => m.payload.content === "The forecast is sunny.");
    expect(BigInt(text!.id)).toBeLessThan(BigInt(voice.id));
    expect(voice.payload).toMatchObject({ content: "", flags: expect.any(Number) });
    expect(Number(voice.payload.flags) & IS_VOICE_MESSAGE).toBe(IS_VOICE_MESSAGE);
    const [meta] = voice.payload.attachments as Array<{ filename: string; duration_secs: number; waveform: string }>;
    expect(meta).toMatchObject({ filename: expect.stringMatching(/\.ogg$/), duration_secs: 3 });
    const waveform = Buffer.from(meta!.waveform, "base64");
    expect(waveform).toHaveLength(30);
    // ffmpeg's sine source plays at 1/8 of full scale: every point of the steady tone is about 255 / 8.
    expect(Math.min(...waveform)).toBeGreaterThanOrEqual(28);
    expect(Math.max(...waveform)).toBeLessThanOrEqual(34);
    expect(voice.files[0]!.bytes.includes(Buffer.from("OpusHead"))).toBe(true);
  });

  it("Feishu: the voice goes as an opus upload with its duration in milliseconds, sent as audio", async () => {
    const feishu: FakeFeishu = await startFakeFeishu();
    platform = feishu;
    const t = await withSpeech({
      access: { allowFrom: ["feishu:ou_alice"] },
      channels: { web: { enabled: false }, feishu: { appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url } },
    });
    await feishu.pushSocket(textEvent("/voice on", { chatId: "oc_dm_alice" }));
    await until(() => feishu.api.sent.some((s) => JSON.stringify(s.content).includes("Done:")), "the /voice answer");
    await feishu.pushSocket(textEvent("weather?", { chatId: "oc_dm_alice" }));
    const audio = await eventually(() => feishu.api.sent.find((s) => s.msgType === "audio"), "the audio message", 15_000);

    const upload = feishu.api.files.get(String(audio.content.file_key));
    expect(upload).toMatchObject({ fileType: "opus", duration: 3000 });
    expect(upload!.name).toMatch(/\.ogg$/);
    expect(upload!.bytes.includes(Buffer.from("OpusHead"))).toBe(true);
    expect(feishu.api.sent.some((s) => JSON.stringify(s.content).includes("The forecast is sunny."))).toBe(true);
    expect(t.fake.requests).toHaveLength(1);
  });
});
