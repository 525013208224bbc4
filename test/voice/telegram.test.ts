/**
 * Spoken replies on Telegram: the whole gateway against the fake Bot API, the fake LLM/STT server and a fake
 * /audio/speech endpoint that answers with real audio made by ffmpeg.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { startFakeMediaAI, type FakeMediaAI } from "../fakes/media-ai-server.js";
import { solidPng, toneAudio } from "../fakes/media-ai-fixtures.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../fakes/telegram/server.js";
import { directChat, messageOf, messageUpdate, text } from "../fakes/telegram/updates.js";
import { closeInOrder } from "../helpers/close.js";
import { eventually } from "../helpers/wait.js";
import { sentOggOpus } from "./sent-voice.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
let ai: FakeMediaAI | undefined;
afterEach(() => closeInOrder([t, tg, ai]).then(() => (t = tg = ai = undefined)));

let speech: Buffer;
let voiceNote: Buffer;
beforeAll(() => {
  speech = toneAudio(2, "mp3");
  voiceNote = toneAudio(1, "opus");
});

const ANSWER = "It is **nine** o'clock. See [the timetable](https://example.com/t) or https://example.com/raw\n\n```\nnpm start\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |";

async function start(voice: Record<string, unknown> = {}): Promise<{ t: TestGateway; tg: FakeTelegram; ai: FakeMediaAI }> {
  ai = await startFakeMediaAI(solidPng());
  tg = await startFakeTelegram();
  t = await startTestGateway({
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
    access: { allowFrom: [`telegram:${directChat().id}`] },
    tts: { baseUrl: ai.url, apiKey: ai.apiKey, format: "mp3" },
    voice,
  });
  t.fake.transcribeWith(() => ({ text: "what time is it" }));
  return { t, tg, ai };
}

function sendVoiceNote(fake: FakeTelegram): number {
  const file = fake.addFile(voiceNote);
  const update = messageUpdate(directChat(), { voice: { ...file, duration: 1, mime_type: "audio/ogg" } });
  fake.addUpdate(update);
  return messageOf(update).message_id;
}

/** Sends a text and waits for its reply: every turn before it in the session, voice included, is done by then. */
async function settle(fake: FakeTelegram, body: string): Promise<void> {
  const update = text(directChat(), body);
  fake.addUpdate(update);
  const id = messageOf(update).message_id;
  await fake.waitFor(() => fake.sent.find((s) => s.method === "sendMessage" && s.replyTo === id), 15_000);
}

const voices = (fake: FakeTelegram): SentRecord[] => fake.sent.filter((s) => s.method === "sendVoice");

describe("spoken replies on Telegram", () => {
  it("answers a voice note with the text and a sendVoice of Ogg/Opus with its duration; code, tables and links are not read", async () => {
    const { t, tg, ai } = await start();
    ai.speakWith(() => ({ audio: speech }));
    t.fake.enqueue({ text: ANSWER });

    const id = sendVoiceNote(tg);
    const voice = await tg.waitFor(() => voices(tg)[0], 20_000);

    const reply = tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === id);
    expect(reply?.text).toContain("npm start");
    expect(reply!.messageId).toBeLessThan(voice.messageId);
    expect(voice.replyTo).toBe(id);
    expect(voice.duration).toBe(2);
    expect((await sentOggOpus(voice.file!.data)).durationSec).toBeCloseTo(2, 1);
    expect(ai.speech).toEqual([{ model: "tts-1", voice: "alloy", input: "It is nine o'clock. See the timetable or", response_format: "mp3", speed: 1 }]);
  });

  it("mirror: a text message gets text only; /voice off silences voice notes too, /voice on speaks every reply", async () => {
    const { t, tg, ai } = await start();
    ai.speakWith(() => ({ audio: speech }));
    t.fake.respondWith(() => ({ text: "Sure." }));

    await settle(tg, "hello");
    expect(voices(tg)).toHaveLength(0);

    await settle(tg, "/voice off");
    sendVoiceNote(tg);
    await settle(tg, "and now?");
    expect(tg.sent.filter((s) => s.method === "sendMessage" && s.text === "Sure.")).toHaveLength(3);
    expect(voices(tg)).toHaveLength(0);
    expect(ai.speech).toHaveLength(0);

    await settle(tg, "/voice on");
    await settle(tg, "speak to me");
    await tg.waitFor(() => voices(tg)[0], 20_000);
    expect(ai.speech.map((r) => r.input)).toEqual(["Sure."]);
  });

  it("/voice text off: a voice note answered by voice alone when all of it is read; with code, symbols between words, or speech down, the text still goes", async () => {
    const { t, tg, ai } = await start();
    ai.speakWith(() => ({ audio: speech }));
    await settle(tg, "/voice text off");
    expect(tg.sent.at(-1)!.text).toContain("without their text");
    t.fake.enqueue({ text: "It is nine o'clock." });

    const spokenOnly = sendVoiceNote(tg);
    const voice = await tg.waitFor(() => voices(tg)[0], 20_000);
    expect(voice.replyTo).toBe(spokenOnly);
    t.fake.enqueue({ text: ANSWER });
    const withCode = sendVoiceNote(tg);
    await tg.waitFor(() => voices(tg)[1], 20_000);
    expect(tg.sent.filter((s) => s.method === "sendMessage" && s.replyTo === spokenOnly)).toEqual([]);
    expect(tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === withCode)?.text).toContain("npm start");
    // The symbols between the words are not read, so the text says what the voice leaves out.
    t.fake.enqueue({ text: "Tests ✅ 3 ❌ 1" });
    const withSymbols = sendVoiceNote(tg);
    await tg.waitFor(() => voices(tg)[2], 20_000);
    expect(tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === withSymbols)?.text).toBe("Tests ✅ 3 ❌ 1");

    ai.speakWith(() => ({ status: 503 }));
    t.fake.enqueue({ text: "Here is your answer." });
    const unspoken = sendVoiceNote(tg);
    const text = await tg.waitFor(() => tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === unspoken), 15_000);
    expect(text.text).toBe("Here is your answer.");
    expect(t.logs.filter((l) => l.msg.includes("not spoken")).map((l) => l.msg)).toEqual(["the reply was not spoken; it goes as text instead"]);

    await settle(tg, "/voice text on");
    expect(tg.sent.at(-1)!.text).toContain("with their text");
  });

  it("voice.reply off in the settings: a voice note is answered in text only", async () => {
    const { t, tg, ai } = await start({ reply: "off" });
    t.fake.respondWith(() => ({ text: "Sure." }));
    sendVoiceNote(tg);
    await settle(tg, "anything else?");
    expect(tg.sent.filter((s) => s.method === "sendMessage" && s.text === "Sure.")).toHaveLength(2);
    expect(voices(tg)).toHaveLength(0);
    expect(ai.speech).toHaveLength(0);
  });

  it("speaks a long answer in several voice notes, each part within the limit", async () => {
    const { t, tg, ai } = await start({ maxPartChars: 200 });
    ai.speakWith(() => ({ audio: speech }));
    const paragraph = "This sentence is about forty characters. ".repeat(4).trim();
    t.fake.enqueue({ text: [paragraph, paragraph, paragraph].join("\n\n") });
    sendVoiceNote(tg);
    await tg.waitFor(() => voices(tg)[2], 20_000);
    expect(ai.speech.map((r) => r.input.length).every((n) => n <= 200)).toBe(true);
    expect(ai.speech).toHaveLength(3);
  });

  it("the speech endpoint down: the text reply still goes, with one log line and no voice", async () => {
    const { t, tg, ai } = await start();
    ai.speakWith(() => ({ status: 503 }));
    t.fake.respondWith(() => ({ text: "Here is your answer." }));

    const id = sendVoiceNote(tg);
    await tg.waitFor(() => tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === id), 15_000);
    const lines = await eventually(() => {
      const found = t.logs.filter((l) => l.msg.includes("not spoken"));
      return found.length > 0 && found;
    }, "the log line about the missing voice");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, endpoint: new URL(ai.url).host });
    expect(String(lines[0]!.err)).toContain("HTTP 503");
    expect(JSON.stringify(t.logs)).not.toContain(ai.apiKey);
    await settle(tg, "thanks");
    expect(voices(tg)).toHaveLength(0);
    expect(t.logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it("send_voice: the agent speaks on its own and gets the receipt", async () => {
    const { t, tg, ai } = await start({ reply: "off" });
    ai.speakWith(() => ({ audio: speech }));
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "send_voice" } }] },
      { toolCalls: [{ name: "send_voice", arguments: { text: "Good morning, Alice." } }] },
      { text: "I said it." },
    );
    await settle(tg, "say good morning");
    const [voice] = voices(tg);
    expect(voice?.duration).toBe(2);
    const result = t.fake.lastToolResults().at(-1)!.content as { ok: boolean; receipts: Array<{ status: string; message_id: string }> };
    expect(result.ok).toBe(true);
    expect(result.receipts[0]).toMatchObject({ status: "delivered", message_id: String(voice!.messageId) });
    expect(ai.speech[0]!.input).toBe("Good morning, Alice.");
  });
});
