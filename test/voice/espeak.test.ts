/**
 * The free, offline provider: the real espeak-ng program (a Debian package the suite's machine has), its voice
 * picked from tts.voice, the person's language or the text, and the whole gateway answering a Telegram voice note
 * with espeak-ng's speech as a native voice note; and what happens when the program is not there.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ttsFeature } from "../../src/features/tts.js";
import { ttsConfigSchema } from "../../src/voice/config.js";
import { EspeakSpeech, espeakVoice } from "../../src/voice/espeak.js";
import { Speaker } from "../../src/voice/speaker.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { toneAudio } from "../fakes/media-ai-fixtures.js";
import { startFakeTelegram, type FakeTelegram, type SentRecord } from "../fakes/telegram/server.js";
import { directChat, messageOf, messageUpdate, text } from "../fakes/telegram/updates.js";
import { captureLog } from "../helpers/captured-log.js";
import { closeInOrder } from "../helpers/close.js";
import { eventually } from "../helpers/wait.js";
import { sentOggOpus } from "./sent-voice.js";

const MISSING = "/nonexistent/bin/espeak-ng";
/** .ci/run installs espeak-ng; where it could not, the tests that run it are skipped. */
const hasEspeak = spawnSync("espeak-ng", ["--version"]).status === 0;

/** The length of a PCM WAV in seconds, from its header's byte rate and its data chunk's size. */
function wavSeconds(wav: Buffer): number {
  expect(wav.subarray(0, 4).toString("latin1")).toBe("RIFF");
  const byteRate = wav.readUInt32LE(28);
  const dataAt = wav.indexOf("data", 12, "latin1");
  // espeak-ng writes to a pipe, so it cannot go back to fill in the size: the bytes after the header are the audio.
  return (wav.length - (dataAt + 8)) / byteRate;
}

describe("espeakVoice", () => {
  it("takes tts.voice first, mapping Chinese tags to Mandarin or Cantonese and keeping espeak-ng's own names", () => {
    expect(espeakVoice("en-us", "zh-Hans", "你好")).toBe("en-us");
    expect(espeakVoice("zh-CN", undefined, "hello")).toBe("cmn");
    expect(espeakVoice("zh_HK", undefined, "hello")).toBe("yue");
    expect(espeakVoice("en-GB+f3", undefined, "hello")).toBe("en-gb+f3");
    expect(espeakVoice("cmn-latn-pinyin", undefined, "ni hao")).toBe("cmn-latn-pinyin");
  });

  it("without tts.voice: the person's language, Mandarin for Chinese text, English when nothing says", () => {
    expect(espeakVoice(null, "zh-Hans", "现在九点。")).toBe("cmn");
    expect(espeakVoice(null, "zh-Hans", "It is nine.")).toBe("en");
    expect(espeakVoice(null, "ko", "아홉 시입니다")).toBe("ko");
    expect(espeakVoice(null, "de", "Es ist neun.")).toBe("de");
    expect(espeakVoice(null, "en", "现在九点。")).toBe("cmn");
    expect(espeakVoice(null, "ja", "九時です")).toBe("ja");
    expect(espeakVoice(null, undefined, "It is nine.")).toBe("en");
  });

  it("refuses a voice that is no espeak-ng name (an OpenAI voice left over, an option), at load with the setting's path", async () => {
    expect(espeakVoice("Alloy Voice", undefined, "x")).toBeNull();
    expect(espeakVoice("--stdout", undefined, "x")).toBeNull();
    const configPath = join(await mkdtemp(join(tmpdir(), "espeak-config-")), "switchboard.yaml");
    await writeFile(configPath, "tts:\n  provider: espeak-ng\n");
    expect(() => loadConfig({ configPath, env: { TTS_VOICE: "alloy" }, cwd: "/srv" })).toThrow(/tts\.voice: "alloy" is no espeak-ng voice/);
    expect(loadConfig({ configPath, env: { TTS_VOICE: "en-gb" }, cwd: "/srv" }).tts).toMatchObject({ provider: "espeak-ng", voice: "en-gb" });
    expect(loadConfig({ env: { TTS_VOICE: "alloy" }, cwd: "/srv" }).tts.voice).toBe("alloy");
  });
});

describe.skipIf(!hasEspeak)("EspeakSpeech", () => {
  const settings = (overrides: Record<string, unknown> = {}) => ttsConfigSchema.parse({ provider: "espeak-ng", ...overrides });

  it("speaks English and Chinese as WAV; a higher tts.speed speaks the same words faster", async () => {
    const words = "The train to Berlin leaves from platform nine at half past seven.";
    const normal = await new EspeakSpeech(settings()).synthesize(words, undefined, "en");
    const fast = await new EspeakSpeech(settings({ speed: 2 })).synthesize(words, undefined, "en");
    expect(normal.extension).toBe("wav");
    expect(wavSeconds(normal.data)).toBeGreaterThan(2);
    expect(wavSeconds(fast.data)).toBeLessThan(wavSeconds(normal.data) * 0.7);
    const chinese = await new EspeakSpeech(settings()).synthesize("现在是九点钟。", undefined, "zh-Hans");
    expect(wavSeconds(chinese.data)).toBeGreaterThan(0.5);
  });

  it("emoji are not read aloud: espeak-ng would name them, the speaker gives it only the words", async () => {
    const espeak = new EspeakSpeech(settings());
    const seconds = async (words: string): Promise<number> => wavSeconds((await espeak.synthesize(words, undefined, "en")).data);
    const { parts } = new Speaker(espeak, { maxPartChars: 500, maxParts: 3 }).partsOf("All done 😀🎉!");
    expect(parts).toEqual(["All done!"]);
    // "grinning face, party popper": a second and more of speech the person did not need.
    expect(await seconds("All done 😀🎉!")).toBeGreaterThan((await seconds("All done!")) + 0.5);
  });

  it("text that looks like options is read, not obeyed: it goes in on stdin", async () => {
    const audio = await new EspeakSpeech(settings()).synthesize("-v xx --help", undefined, "en");
    expect(wavSeconds(audio.data)).toBeGreaterThan(0.3);
  });

  it("errors say what is wrong: no program, a voice espeak-ng does not have, a voice it cannot take", async () => {
    await expect(new EspeakSpeech(settings({ espeakPath: MISSING })).synthesize("hi")).rejects.toThrow(`espeak-ng is not installed (no program at ${MISSING})`);
    await expect(new EspeakSpeech(settings({ voice: "xx" })).synthesize("hi")).rejects.toThrow(/espeak-ng could not speak with the voice xx: .*does not exist/);
    await expect(new EspeakSpeech(settings({ voice: "Alloy Voice" })).synthesize("hi")).rejects.toThrow(/cannot take the voice "Alloy Voice"/);
  });

  it("doctor: espeak-ng speaks one word, or the line says to install it", async () => {
    const { log } = captureLog([]);
    const core = loadConfig({ env: {}, cwd: "/srv" });
    expect(await ttsFeature.doctor!(settings(), core, log)).toMatchObject([{ name: "tts", ok: true, detail: expect.stringMatching(/^espeak-ng spoke \d+ bytes of WAV/) }]);
    const [missing] = await ttsFeature.doctor!(settings({ espeakPath: MISSING }), core, log);
    expect(missing).toMatchObject({ ok: false, detail: expect.stringContaining("not installed"), fix: expect.stringContaining("apt-get install espeak-ng") });
  });
});

describe("espeak-ng on Telegram", () => {
  let t: TestGateway | undefined;
  let tg: FakeTelegram | undefined;
  afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

  let voiceNote: Buffer;
  beforeAll(() => {
    voiceNote = toneAudio(1, "opus");
  });

  async function start(tts: Record<string, unknown>): Promise<{ t: TestGateway; tg: FakeTelegram; id: number }> {
    tg = await startFakeTelegram();
    t = await startTestGateway({
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
      access: { allowFrom: [`telegram:${directChat().id}`] },
      tts: { provider: "espeak-ng", ...tts },
    });
    t.fake.transcribeWith(() => ({ text: "what time is it" }));
    t.fake.respondWith(() => ({ text: "It is nine o'clock in the morning." }));
    const file = tg.addFile(voiceNote);
    const update = messageUpdate(directChat(), { voice: { ...file, duration: 1, mime_type: "audio/ogg" } });
    tg.addUpdate(update);
    return { t, tg, id: messageOf(update).message_id };
  }

  const voices = (fake: FakeTelegram): SentRecord[] => fake.sent.filter((s) => s.method === "sendVoice");

  it.skipIf(!hasEspeak)("answers a voice note with the text and a sendVoice of Ogg/Opus made from espeak-ng's speech", async () => {
    const { tg, id } = await start({});
    const voice = await tg.waitFor(() => voices(tg)[0], 20_000);

    const reply = tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === id);
    expect(reply?.text).toBe("It is nine o'clock in the morning.");
    expect(voice.replyTo).toBe(id);
    expect(voice.duration).toBeGreaterThan(0);
    const info = await sentOggOpus(voice.file!.data);
    expect(info.durationSec).toBeGreaterThan(1);
    expect(Math.abs(info.durationSec - voice.duration!)).toBeLessThanOrEqual(0.5);
  });

  it("espeak-ng missing: the text reply still goes, with one log line and no voice", async () => {
    const { t, tg, id } = await start({ espeakPath: MISSING });
    await tg.waitFor(() => tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === id), 15_000);
    const lines = await eventually(() => {
      const found = t.logs.filter((l) => l.msg.includes("not spoken"));
      return found.length > 0 && found;
    }, "the log line about the missing voice");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, endpoint: "espeak-ng" });
    expect(String(lines[0]!.err)).toContain("espeak-ng is not installed");
    const after = text(directChat(), "thanks");
    tg.addUpdate(after);
    await tg.waitFor(() => tg.sent.find((s) => s.method === "sendMessage" && s.replyTo === messageOf(after).message_id), 15_000);
    expect(voices(tg)).toHaveLength(0);
    expect(t.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});
