import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Ffmpeg } from "../../src/media/ffmpeg.js";
import { oggOpusInfo } from "../../src/media/ogg-opus.js";
import type { Receipt } from "../../src/media/receipts.js";
import { startImHarness, type ImHarness } from "./harness.js";
import { hasFfmpeg, oggOpus, sineWav } from "./media-fixtures.js";
import { TestChannel } from "./test-channel.js";

let h: ImHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NO_FFMPEG = { ffmpegPath: "/nonexistent/ffmpeg" };

async function deliverVoice(harness: ImHarness, channel: TestChannel["name"], file: Buffer, name = "memo.wav"): Promise<Receipt> {
  await harness.writeWorkspaceFile(name, file);
  const ctx = harness.context({ channel, sessionKey: `${channel}:chat-1`, message: undefined });
  const result = await harness.output<{ receipts: Receipt[] }>("deliver_artifacts", { artifacts: [{ type: "voice", path: name }] }, ctx);
  return result.receipts[0]!;
}

describe("oggOpusInfo", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const write = async (name: string, bytes: Buffer): Promise<string> => {
    dir ??= await mkdtemp(join(tmpdir(), "switchboard-ogg-"));
    await writeFile(join(dir, name), bytes);
    return join(dir, name);
  };

  it("reads the duration less the pre-skip, even when the audio spells OggS", async () => {
    expect(await oggOpusInfo(await write("a.ogg", oggOpus(1.5)))).toEqual({ durationSec: 1.5 });
    const tricky = Buffer.concat([Buffer.from("OggS", "latin1"), Buffer.alloc(60, 0xff)]);
    expect(await oggOpusInfo(await write("b.ogg", oggOpus(2, tricky)))).toEqual({ durationSec: 2 });
  });

  it("answers undefined for other formats and for a stream cut short, and rejects a missing file", async () => {
    expect(await oggOpusInfo(await write("tone.wav", sineWav(0.2)))).toBeUndefined();
    expect(await oggOpusInfo(await write("cut.ogg", oggOpus(1).subarray(0, 40)))).toBeUndefined();
    expect(await oggOpusInfo(await write("notes.txt", Buffer.from("OggS is not enough")))).toBeUndefined();
    await expect(oggOpusInfo(join(tmpdir(), "switchboard-no-such-file.ogg"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("voice delivery", () => {
  it("without ffmpeg sends an audio file and says so in the receipt", async () => {
    h = await startImHarness({ media: NO_FFMPEG });
    const receipt = await deliverVoice(h, "telegram", sineWav(0.2));
    expect(receipt).toMatchObject({ status: "delivered", sent_as: "audio", mime: "audio/wav" });
    expect(receipt.warnings).toEqual(["ffmpeg is not installed, so memo.wav went as an audio file rather than a voice message"]);
    const [sent] = h.channels.get("telegram")!.received;
    expect(sent?.file).toMatchObject({ kind: "audio", name: "memo.wav" });
    expect(sent?.bytes.equals(sineWav(0.2))).toBe(true);
  });

  it("sends Discord an audio file and WebChat the file as it is, with no conversion", async () => {
    h = await startImHarness({ media: NO_FFMPEG, channels: [new TestChannel("discord"), new TestChannel("web")] });
    const discord = await deliverVoice(h, "discord", sineWav(0.2));
    const web = await deliverVoice(h, "web", sineWav(0.3), "other.wav");
    expect(discord).toMatchObject({ status: "delivered", sent_as: "audio" });
    expect(discord.warnings).toBeUndefined();
    expect(web.status).toBe("delivered");
    expect(h.channels.get("discord")!.received[0]?.file.kind).toBe("audio");
    expect(h.channels.get("web")!.received[0]?.file).toMatchObject({ kind: "voice", name: "other.wav" });
  });
});

describe.skipIf(!hasFfmpeg)("voice conversion with ffmpeg", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("converts a WAV file to Ogg/Opus with its duration", async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-ffmpeg-"));
    const wav = join(dir, "tone.wav");
    await writeFile(wav, sineWav(1.5));
    const ffmpeg = new Ffmpeg("ffmpeg");
    expect(await ffmpeg.available()).toBe(true);

    await ffmpeg.toOggOpus(wav, join(dir, "tone.ogg"));

    const info = await oggOpusInfo(join(dir, "tone.ogg"));
    expect(info?.durationSec).toBeCloseTo(1.5, 1);
    expect(await oggOpusInfo(wav)).toBeUndefined();
  });

  it("sends Telegram and Feishu an Ogg/Opus voice message with its duration", async () => {
    h = await startImHarness({ channels: [new TestChannel("telegram"), new TestChannel("feishu")] });
    for (const channel of ["telegram", "feishu"] as const) {
      const receipt = await deliverVoice(h, channel, sineWav(2));
      expect(receipt).toMatchObject({ status: "delivered", type: "voice" });
      expect(receipt.sent_as).toBeUndefined();
      const [sent] = h.channels.get(channel)!.received;
      expect(sent?.file).toMatchObject({ kind: "voice", name: "memo.ogg", mime: "audio/ogg", durationSec: 2 });
      expect(sent?.bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
      expect(sent?.bytes.includes("OpusHead")).toBe(true);
    }
  });

  it("sends audio ffmpeg cannot read as an audio file with ffmpeg's complaint", async () => {
    h = await startImHarness();
    const broken = Buffer.concat([sineWav(0.1).subarray(0, 12), Buffer.from("garbage that is no fmt chunk")]);
    const receipt = await deliverVoice(h, "telegram", broken);
    expect(receipt).toMatchObject({ status: "delivered", sent_as: "audio" });
    expect(receipt.warnings?.[0]).toMatch(/^ffmpeg could not convert the audio: .+; memo\.wav went as an audio file/);
    expect(h.logs.some((l) => l.msg === "voice conversion failed; sending an audio file")).toBe(true);
  });

  it("sends an Ogg/Opus file as a voice message even where ffmpeg is missing", async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-ffmpeg-"));
    await writeFile(join(dir, "in.wav"), sineWav(1));
    await new Ffmpeg("ffmpeg").toOggOpus(join(dir, "in.wav"), join(dir, "ready.ogg"));
    h = await startImHarness({ media: NO_FFMPEG });
    const receipt = await deliverVoice(h, "telegram", await readFile(join(dir, "ready.ogg")), "ready.ogg");
    expect(receipt.sent_as).toBeUndefined();
    expect(h.channels.get("telegram")!.received[0]?.file).toMatchObject({ kind: "voice", durationSec: 1 });
  });
});

describe("Ffmpeg", () => {
  it("reports a missing binary as unavailable instead of throwing", async () => {
    expect(await new Ffmpeg("/nonexistent/ffmpeg").available()).toBe(false);
  });
});
