/** The tts, voice and images settings: env overrides, bad values refused by path, and doctor's lines for both endpoints. */
import { afterEach, describe, expect, it } from "vitest";
import { configSchema, loadConfig } from "../../src/config.js";
import { ttsFeature } from "../../src/features/tts.js";
import { imagesFeature } from "../../src/features/images.js";
import { ttsConfigSchema } from "../../src/voice/config.js";
import { imagesConfigSchema } from "../../src/images/config.js";
import { startFakeMediaAI, type FakeMediaAI } from "../fakes/media-ai-server.js";
import { solidPng, toneAudio } from "../fakes/media-ai-fixtures.js";
import { captureLog } from "../helpers/captured-log.js";

let ai: FakeMediaAI | undefined;
afterEach(() => ai?.close().then(() => (ai = undefined)));

const { log } = captureLog([]);
const core = loadConfig({ env: {}, cwd: "/srv" });

describe("settings", () => {
  it("TTS_* set the tts section; the key is a secret", () => {
    const config = loadConfig({ env: { TTS_BASE_URL: "http://127.0.0.1:8880/v1", TTS_API_KEY: "sk-tts", TTS_MODEL: "kokoro", TTS_VOICE: "af_bella" }, cwd: "/srv" });
    expect(config.tts).toMatchObject({ baseUrl: "http://127.0.0.1:8880/v1", apiKey: "sk-tts", model: "kokoro", voice: "af_bella" });
    expect(config.voice.reply).toBe("mirror");
  });

  it("refuses a voice.reply that is not off, mirror or always, naming the path", () => {
    const parsed = configSchema.safeParse({ voice: { reply: "sometimes" }, tts: { speed: 9 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join(".")).sort()).toEqual(["tts.speed", "voice.reply"]);
  });
});

describe("doctor", () => {
  it("speaks one word at the speech endpoint and lists the image endpoint's models", async () => {
    ai = await startFakeMediaAI(solidPng());
    ai.speakWith(() => ({ audio: toneAudio(0.2, "opus") }));
    const tts = await ttsFeature.doctor!(ttsConfigSchema.parse({ baseUrl: ai.url, apiKey: ai.apiKey }), core, log);
    expect(tts).toMatchObject([{ name: "tts", ok: true }]);
    expect(ai.speech[0]!.input).toBe("ok");
    const images = await imagesFeature.doctor!(imagesConfigSchema.parse({ baseUrl: ai.url, apiKey: ai.apiKey }), core, log);
    expect(images).toMatchObject([{ name: "images", ok: true }]);
    expect(ai.images).toHaveLength(0);
  });

  it("fails with the reason and the fix when the endpoints refuse the key or are down", async () => {
    ai = await startFakeMediaAI(solidPng());
    ai.speakWith(() => ({ status: 500 }));
    const [tts] = await ttsFeature.doctor!(ttsConfigSchema.parse({ baseUrl: ai.url, apiKey: ai.apiKey }), core, log);
    expect(tts).toMatchObject({ ok: false, detail: expect.stringContaining("HTTP 500"), fix: expect.stringContaining("tts.baseUrl") });
    const [images] = await imagesFeature.doctor!(imagesConfigSchema.parse({ baseUrl: ai.url, apiKey: "sk-wrong" }), core, log);
    expect(images).toMatchObject({ ok: false, detail: expect.stringContaining("refused the key") });
    expect(images!.detail).not.toContain("sk-wrong");
  });

  it("says the feature is off when no endpoint is set", async () => {
    expect(await ttsFeature.doctor!(ttsConfigSchema.parse({}), core, log)).toMatchObject([{ ok: true, detail: expect.stringMatching(/^off/) }]);
    expect(await imagesFeature.doctor!(imagesConfigSchema.parse({}), core, log)).toMatchObject([{ ok: true, detail: expect.stringMatching(/^off/) }]);
  });
});
