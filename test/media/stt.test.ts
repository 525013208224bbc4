import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { configSchema, type ConfigInput } from "../../src/config.js";
import { collectSecrets } from "../../src/config.js";
import { SpeechToText, SttError, sttEndpointOf } from "../../src/media/stt.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";

const configOf = (input: ConfigInput) => configSchema.parse(input);

describe("sttEndpointOf", () => {
  it("defaults to the LLM endpoint and key", () => {
    const config = configOf({ llm: { baseUrl: "http://llm.example/v1", apiKey: "sk-llm" } });
    expect(sttEndpointOf(config)).toEqual({ baseUrl: "http://llm.example/v1", apiKey: "sk-llm", model: "whisper-1", language: null, timeoutMs: 60_000 });
  });

  it("never sends the LLM key to an STT endpoint of its own", () => {
    const config = configOf({ llm: { baseUrl: "http://llm.example/v1", apiKey: "sk-llm" }, media: { stt: { baseUrl: "http://stt.example/v1" } } });
    expect(sttEndpointOf(config)).toMatchObject({ baseUrl: "http://stt.example/v1", apiKey: null });
  });

  it("says why there is no endpoint", () => {
    expect(sttEndpointOf(configOf({}))).toEqual({ problem: "no speech-to-text endpoint is configured (set STT_BASE_URL)" });
    const anthropic = configOf({ llm: { provider: "anthropic", apiKey: "sk-ant" } });
    expect(sttEndpointOf(anthropic)).toMatchObject({ problem: expect.stringMatching(/STT_BASE_URL/) });
    const off = configOf({ llm: { baseUrl: "http://llm.example/v1" }, media: { stt: { enabled: false } } });
    expect(sttEndpointOf(off)).toEqual({ problem: "speech-to-text is turned off (media.stt.enabled)" });
  });

  it("reads STT_BASE_URL, STT_API_KEY and STT_MODEL, and treats the key as a secret", () => {
    const env = { STT_BASE_URL: "http://stt.example/v1", STT_API_KEY: "sk-stt-secret", STT_MODEL: "whisper-large-v3" };
    const config = loadConfig({ env });
    expect(config.media.stt).toMatchObject({ baseUrl: "http://stt.example/v1", apiKey: "sk-stt-secret", model: "whisper-large-v3" });
    expect(collectSecrets(config)).toContain("sk-stt-secret");
  });

  it("rejects a bad language code and a non-HTTP URL", () => {
    expect(configSchema.safeParse({ media: { stt: { language: "english" } } }).success).toBe(false);
    expect(configSchema.safeParse({ media: { stt: { baseUrl: "ftp://stt.example" } } }).success).toBe(false);
  });
});

describe("SpeechToText", () => {
  let fake: FakeOpenAI;
  let dir: string;
  let audio: string;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
    dir = await mkdtemp(join(tmpdir(), "switchboard-stt-"));
    audio = join(dir, "note.ogg");
    await writeFile(audio, "OggS fake audio");
  });
  afterEach(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  const client = (overrides: Partial<ConstructorParameters<typeof SpeechToText>[0]> = {}) =>
    new SpeechToText({ baseUrl: `${fake.url}/`, apiKey: "sk-stt", model: "whisper-1", language: null, timeoutMs: 5_000, ...overrides });

  it("posts the file and the model, and trims the answer", async () => {
    fake.transcribeWith(() => ({ text: "  hello world \n" }));
    expect(await client().transcribe(audio, { mime: "audio/ogg" })).toBe("hello world");
    expect(fake.transcriptions[0]).toMatchObject({ model: "whisper-1", fileName: "note.ogg", mime: "audio/ogg", language: undefined });
    expect(fake.transcriptions[0]!.audio.toString()).toBe("OggS fake audio");
    expect(fake.transcriptions[0]!.headers.authorization).toBe("Bearer sk-stt");
  });

  it("fails with a reason for an error status, an answer without text, and a hanging service", async () => {
    fake.transcribeWith(() => ({ status: 401, body: { error: { message: "invalid api key" } } }));
    const refused = await client().transcribe(audio).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SttError);
    expect(refused).toMatchObject({ status: 401, message: "the speech-to-text service answered HTTP 401: invalid api key" });
    fake.transcribeWith(() => ({ status: 200, body: { transcript: "wrong field" } }));
    await expect(client().transcribe(audio)).rejects.toThrow(/answered without a transcript/);
    fake.transcribeWith(() => ({ hang: true }));
    await expect(client({ timeoutMs: 200 }).transcribe(audio)).rejects.toThrow(/could not be reached \(no answer within 200 ms\)/);
  });
});
