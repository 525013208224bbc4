/** The speech client against the fake endpoint: what it sends, and errors that name the endpoint but never the key. */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeMediaAI, type FakeMediaAI } from "../fakes/media-ai-server.js";
import { solidPng } from "../fakes/media-ai-fixtures.js";
import { SpeechClient } from "../../src/voice/speech.js";
import { ttsConfigSchema } from "../../src/voice/config.js";

let ai: FakeMediaAI | undefined;
afterEach(() => ai?.close().then(() => (ai = undefined)));

function client(fake: FakeMediaAI, overrides: Record<string, unknown> = {}): SpeechClient {
  const config = ttsConfigSchema.parse({ baseUrl: fake.url, apiKey: fake.apiKey, voice: "nova", speed: 1.5, ...overrides });
  return new SpeechClient({ ...config, baseUrl: fake.url });
}

describe("SpeechClient", () => {
  it("posts OpenAI's JSON and returns the audio with the extension of the asked format", async () => {
    ai = await startFakeMediaAI(solidPng());
    ai.speakWith(() => ({ audio: Buffer.from("OggS audio") }));
    const audio = await client(ai).synthesize("hello");
    expect(audio).toEqual({ data: Buffer.from("OggS audio"), extension: "ogg" });
    expect(ai.speech).toEqual([{ model: "tts-1", voice: "nova", input: "hello", response_format: "opus", speed: 1.5 }]);
  });

  it.each([429, 500])("an HTTP %i names the host and status, not the key", async (status) => {
    ai = await startFakeMediaAI(solidPng());
    ai.speakWith(() => ({ status }));
    const err = (await client(ai).synthesize("hello").catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(new RegExp(`^the speech endpoint at 127\\.0\\.0\\.1:\\d+ answered HTTP ${status}`));
    expect(err.message).not.toContain(ai.apiKey);
  });

  it("a wrong key is refused with the endpoint's 401", async () => {
    ai = await startFakeMediaAI(solidPng());
    const err = (await client(ai, { apiKey: "sk-wrong" }).synthesize("hello").catch((e: unknown) => e)) as Error;
    expect(err.message).toContain("HTTP 401");
  });

  it("an endpoint that is not there is reported as unreachable", async () => {
    ai = await startFakeMediaAI(solidPng());
    const gone = client(ai);
    await ai.close();
    ai = undefined;
    await expect(gone.synthesize("hello")).rejects.toThrow(/could not be reached/);
  });
});
