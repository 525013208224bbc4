import { once } from "node:events";
import { readFile, stat, utimes } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Attachment, ChannelName } from "../../src/core/types.js";
import { MediaJanitor } from "../../src/media/janitor.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { inbound, startImHarness, type ImHarness, type ImHarnessOptions } from "./harness.js";
import { PNG, sineWav } from "./media-fixtures.js";
import { TestChannel } from "./test-channel.js";
import { closeInOrder } from "../helpers/close.js";

let h: ImHarness | undefined;
let fake: FakeOpenAI | undefined;
afterEach(() => closeInOrder([h, fake]).then(() => (h = fake = undefined)));

const WAV = sineWav(0.5);
const voice: Attachment = { kind: "voice", ref: "voice-1", mime: "audio/wav", durationSec: 1 };
const photo: Attachment = { kind: "image", ref: "photo-1", mime: "image/png", size: PNG.length };

async function setUp(opts: { channels?: ChannelName[]; media?: ImHarnessOptions["media"]; vision?: boolean } = {}): Promise<ImHarness> {
  fake = await startFakeOpenAI();
  const channels = (opts.channels ?? ["telegram"]).map((name) => new TestChannel(name));
  for (const channel of channels) {
    channel.files.set("voice-1", WAV);
    channel.files.set("photo-1", PNG);
  }
  h = await startImHarness({ fake, channels, media: opts.media ?? {}, llm: { vision: opts.vision ?? false } });
  return h;
}

/** A port nothing listens on: taken from the OS, then let go. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

type Part = { type: string; text?: string; image_url?: { url: string } };
function lastUserParts(server: FakeOpenAI): Part[] {
  const content = server.requests.at(-1)!.body.messages!.filter((m) => m.role === "user").at(-1)!.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : (content as Part[]);
}

describe("inbound voice", () => {
  for (const channel of ["telegram", "feishu"] as const) {
    it(`puts the transcript of a ${channel} voice message into the model's input`, async () => {
      const harness = await setUp({ channels: [channel] });
      fake!.transcribeWith(() => ({ text: "remind me to buy milk" }));
      fake!.enqueue({ text: "I will remind you." });
      const message = inbound("", { channel, platformMessageId: "100", attachments: [voice] });

      const result = await harness.turn(message);

      expect(result.text).toBe("I will remind you.");
      const text = lastUserParts(fake!)[0]!.text!;
      expect(text).toMatch(/<untrusted_transcript attachment="1" kind="voice" source="[^"]+">\nremind me to buy milk\n<\/untrusted_transcript>/);
      expect(text).toContain('message_id="100"');
      const [sent] = fake!.transcriptions;
      expect(sent).toMatchObject({ model: "whisper-1", mime: "audio/wav" });
      expect(sent?.audio.equals(WAV)).toBe(true);
      // Without an STT endpoint of its own, STT uses the LLM endpoint and key.
      expect(sent?.headers.authorization).toBe("Bearer sk-im-test-key");
    });
  }

  it("get_voice_file returns the downloaded file and the transcript without transcribing again", async () => {
    const harness = await setUp();
    fake!.transcribeWith(() => ({ text: "hello there" }));
    fake!.enqueue({ text: "Hi!" });
    const message = inbound("", { platformMessageId: "100", attachments: [voice] });
    await harness.turn(message);

    const result = await harness.output("get_voice_file", {}, harness.context({ message }));

    expect(result).toMatchObject({
      found: true,
      message_id: "100",
      files: [{ attachment: 1, kind: "voice", mime: "audio/wav", size: WAV.length, duration_sec: 1, path: expect.stringMatching(/^inbox\//) }],
    });
    const [file] = (result as { files: Array<{ path: string; transcript: string }> }).files;
    expect(file!.transcript).toBe("<untrusted_transcript>\nhello there\n</untrusted_transcript>");
    expect((await readFile(join(harness.workspaceDir, file!.path))).equals(WAV)).toBe(true);
    expect(fake!.transcriptions).toHaveLength(1);
    expect(harness.channels.get("telegram")!.downloads).toHaveLength(1);
  });

  it("finds the voice message the current message replies to, or the one named by message_id", async () => {
    const harness = await setUp();
    fake!.transcribeWith(() => ({ text: "the code is 42" }));
    fake!.respondWith(() => ({ text: "ok" }));
    await harness.turn(inbound("", { platformMessageId: "100", attachments: [voice] }));
    const reply = inbound("what did I say here?", { platformMessageId: "101", replyTo: { messageId: "100" } });
    await harness.turn(reply);

    const viaReply = await harness.output("get_voice_file", {}, harness.context({ message: reply }));
    const viaId = await harness.output("get_voice_file", { message_id: "100" }, harness.context({ message: reply }));

    for (const result of [viaReply, viaId]) {
      expect(result).toMatchObject({ found: true, message_id: "100", files: [{ transcript: expect.stringContaining("the code is 42") }] });
    }
  });

  it("answers clearly when there is no voice message", async () => {
    const harness = await setUp();
    const plain = harness.context({ message: inbound("hi", { platformMessageId: "7" }) });
    expect(await harness.output("get_voice_file", {}, plain)).toEqual({
      found: false,
      message: "The current message has no voice or audio message. It does not reply to another message; ask the user to reply to the one they mean, or pass its message_id.",
    });
    expect(await harness.output("get_voice_file", { message_id: "999" }, plain)).toMatchObject({
      found: false,
      message: expect.stringMatching(/^No message 999 is known in this chat/),
    });
    expect(await harness.output("get_image_file", {}, harness.context({ message: undefined }))).toMatchObject({ found: false });
  });

  it("tells the model when the STT service is down, and the turn still answers", async () => {
    const harness = await setUp();
    fake!.transcribeWith(() => ({ status: 503, body: { error: { message: "overloaded" } } }));
    fake!.enqueue({ text: "Sorry, I could not listen to that." });

    const result = await harness.turn(inbound("", { attachments: [voice] }));

    expect(result.text).toBe("Sorry, I could not listen to that.");
    expect(lastUserParts(fake!)[0]!.text).toContain(
      "Attachment 1 (voice) could not be transcribed: the speech-to-text service answered HTTP 503: overloaded. Tell the user if you need what it says.",
    );
    expect(harness.logs.some((l) => l.msg === "transcription failed" && l.level === 40)).toBe(true);
  });

  it("does not send the LLM key to an STT endpoint of its own, and reports an unreachable one", async () => {
    fake = await startFakeOpenAI();
    const channel = new TestChannel("telegram");
    channel.files.set("voice-1", WAV);
    fake.transcribeWith(() => ({ text: "ok" }));
    fake.respondWith(() => ({ text: "fine" }));
    h = await startImHarness({ fake, channels: [channel], media: { stt: { baseUrl: fake.url, model: "whisper-large", language: "de" } } });

    await h.turn(inbound("", { attachments: [voice] }));
    expect(fake.transcriptions[0]).toMatchObject({ model: "whisper-large", language: "de" });
    expect(fake.transcriptions[0]!.headers.authorization).toBeUndefined();

    await h.close();
    const closedPort = await freePort();
    h = await startImHarness({ fake, channels: [channel], media: { stt: { baseUrl: `http://127.0.0.1:${closedPort}/v1` } } });
    await h.turn(inbound("", { attachments: [voice] }));
    expect(lastUserParts(fake)[0]!.text).toContain(`could not be transcribed: the speech-to-text service at 127.0.0.1:${closedPort} could not be reached (ECONNREFUSED)`);
  });

  it("refuses to download attachments over the configured size, before and after downloading", async () => {
    const harness = await setUp({ media: { maxDownloadBytes: 1000 } });
    fake!.respondWith(() => ({ text: "ok" }));
    const declared = { ...voice, size: 5000 };
    await harness.turn(inbound("", { attachments: [declared] }));
    expect(lastUserParts(fake!)[0]!.text).toContain("could not be transcribed: The voice is 4.9 KB; attachments are downloaded up to 1000 B (media.maxDownloadBytes)");
    expect(harness.channels.get("telegram")!.downloads).toEqual([]);

    // The platform did not say how large it is: the download is measured and removed.
    const message = inbound("", { attachments: [voice] });
    await harness.turn(message);
    const result = await harness.output("get_voice_file", {}, harness.context({ message }));
    expect(result).toMatchObject({ found: true, files: [{ error: expect.stringMatching(/attachments are downloaded up to/) }] });
    expect(fake!.transcriptions).toEqual([]);
  });
});

describe("inbound images", () => {
  it("reach a vision model as image content, downloaded once into the workspace", async () => {
    const harness = await setUp({ vision: true });
    fake!.enqueue({ text: "A tiny picture." });
    const message = inbound("what is this?", { attachments: [photo] });

    await harness.turn(message);
    const parts = lastUserParts(fake!);
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
    expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);

    const result = await harness.output("get_image_file", {}, harness.context({ message }));
    expect(result).toMatchObject({
      found: true,
      files: [{ attachment: 1, kind: "image", mime: "image/png", size: PNG.length, width: 1, height: 1, path: expect.stringMatching(/^inbox\//) }],
    });
    expect(harness.channels.get("telegram")!.downloads).toHaveLength(1);
    expect(fake!.transcriptions).toEqual([]);
  });
});

describe("media janitor", () => {
  it("deletes downloads older than the retention time and keeps newer ones", async () => {
    const harness = await setUp();
    const old = await harness.writeWorkspaceFile("inbox/old.ogg", "old");
    const fresh = await harness.writeWorkspaceFile("inbox/fresh.ogg", "fresh");
    const kept = await harness.writeWorkspaceFile("notes.txt", "not a download");
    const now = Date.now();
    const twoDaysAgo = new Date(now - 48 * 3_600_000);
    await utimes(join(harness.workspaceDir, old), twoDaysAgo, twoDaysAgo);
    await utimes(join(harness.workspaceDir, kept), twoDaysAgo, twoDaysAgo);

    const janitor = new MediaJanitor(join(harness.dir, "workspaces"), 24 * 3_600_000, harness.context().log);
    expect(await janitor.sweep(now)).toBe(1);

    await expect(stat(join(harness.workspaceDir, old))).rejects.toThrow(/ENOENT/);
    expect((await stat(join(harness.workspaceDir, fresh))).isFile()).toBe(true);
    expect((await stat(join(harness.workspaceDir, kept))).isFile()).toBe(true);
    expect(await new MediaJanitor(join(harness.dir, "nowhere"), 1000, harness.context().log).sweep()).toBe(0);
  });
});
