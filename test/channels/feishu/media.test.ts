import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OutboundFile, OutboundTarget } from "../../../src/core/types.js";
import { startRig, type Rig } from "./harness.js";

let rig: Rig;
let dir: string;
beforeEach(async () => {
  rig = await startRig({ mode: "webhook" });
  rig.fake.api.knowMessage("om_question", "oc_chat");
  dir = await mkdtemp(join(tmpdir(), "feishu-media-"));
});
afterEach(async () => {
  await rig.close();
});

const chat: OutboundTarget = { channel: "feishu", chatId: "oc_chat" };

type Kind = OutboundFile["kind"];

async function fileOf(name: string, bytes: Buffer, kind: Kind, extra: Partial<OutboundFile> = {}): Promise<OutboundFile> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return { path, name, kind, ...extra };
}

describe("sending files to Feishu", () => {
  it("uploads an image and sends it as an image message answering the question", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000", "hex");
    const sent = await rig.channel.sendFile(chat, await fileOf("chart.png", png, "image"), { replyTo: "om_question" });
    const [upload] = [...rig.fake.api.images.values()];
    expect(upload!.bytes.equals(png)).toBe(true);
    expect(rig.fake.api.sent).toEqual([
      expect.objectContaining({
        msgType: "image",
        content: { image_key: upload!.key },
        replyTo: "om_question",
        messageId: sent.messageId,
      }),
    ]);
  });

  it("sends opus voice as an audio message with its duration, documents by type, anything else as a stream", async () => {
    await rig.channel.sendFile(chat, await fileOf("note.opus", Buffer.from("OggS-voice"), "voice", { durationSec: 3.5 }));
    await rig.channel.sendFile(chat, await fileOf("report.pdf", Buffer.from("%PDF-1.7"), "file"));
    await rig.channel.sendFile(chat, await fileOf("slides.pptx", Buffer.from("pk"), "file"));
    await rig.channel.sendFile(chat, await fileOf("clip.mp4", Buffer.from("mp4"), "video"));
    await rig.channel.sendFile(chat, await fileOf("data.zip", Buffer.from("zip"), "file"));
    await rig.channel.sendFile(chat, await fileOf("song.mp3", Buffer.from("id3"), "audio"));
    const uploads = [...rig.fake.api.files.values()].map((f) => [f.name, f.fileType, f.duration]);
    expect(uploads).toEqual([
      ["note.opus", "opus", 3500],
      ["report.pdf", "pdf", undefined],
      ["slides.pptx", "ppt", undefined],
      ["clip.mp4", "mp4", undefined],
      ["data.zip", "stream", undefined],
      ["song.mp3", "stream", undefined],
    ]);
    expect(rig.fake.api.sent.map((m) => m.msgType)).toEqual(["audio", "file", "file", "file", "file", "file"]);
  });

  it("sends an image over 10 MB as a file, and a caption as a text message after the file", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 7);
    await rig.channel.sendFile(chat, await fileOf("huge.png", big, "image", { caption: "the full-size chart" }));
    expect([...rig.fake.api.files.values()].map((f) => [f.name, f.fileType])).toEqual([["huge.png", "stream"]]);
    expect(rig.fake.api.sent.map((m) => m.msgType)).toEqual(["file", "interactive"]);
    expect(JSON.stringify(rig.fake.api.sent[1]!.content)).toContain("the full-size chart");
  });

  it("refuses an empty file before uploading anything", async () => {
    await expect(rig.channel.sendFile(chat, await fileOf("empty.txt", Buffer.alloc(0), "file"))).rejects.toThrow(/empty files/);
    expect(rig.fake.api.files.size + rig.fake.api.sent.length).toBe(0);
  });

  it("treats an upload answered with a business code as failed, with the code", async () => {
    rig.fake.api.fail(/\/images$/, 1, { status: 200, code: 234007, msg: "App does not enable bot feature." });
    await expect(rig.channel.sendFile(chat, await fileOf("a.png", Buffer.from("png"), "image"))).rejects.toThrow(
      /Feishu error 234007: App does not enable bot feature\./,
    );
    expect(rig.fake.api.sent).toEqual([]);
  });
});

describe("downloading what users sent", () => {
  it("downloads an image and a voice message with im.messageResource.get, by type", async () => {
    const jpeg = Buffer.from("ffd8ffe0-jpeg-bytes");
    const voice = Buffer.from("OggS-opus-voice-bytes");
    rig.fake.api.addResource("om_1", "img_v3_photo", "image", jpeg, "image/jpeg");
    rig.fake.api.addResource("om_2", "file_v3_voice", "file", voice, "audio/ogg");
    const image = await rig.channel.download({ kind: "image", ref: "om_1/img_v3_photo" }, join(dir, "inbox"));
    const audio = await rig.channel.download({ kind: "voice", ref: "om_2/file_v3_voice", durationSec: 4 }, join(dir, "inbox"));
    expect(await readFile(image)).toEqual(jpeg);
    expect(await readFile(audio)).toEqual(voice);
    expect(basename(image)).toBe("image-img_v3_photo.jpg");
    expect(basename(audio)).toBe("voice-file_v3_voice.ogg");
    expect(rig.fake.api.resourceRequests).toEqual([
      { messageId: "om_1", fileKey: "img_v3_photo", type: "image" },
      { messageId: "om_2", fileKey: "file_v3_voice", type: "file" },
    ]);
  });

  it("keeps the sender's file name, made safe, and never overwrites an earlier download", async () => {
    rig.fake.api.addResource("om_3", "file_v3_doc", "file", Buffer.from("v1"), "application/pdf");
    const attachment = { kind: "file" as const, ref: "om_3/file_v3_doc", name: "../report.pdf" };
    const first = await rig.channel.download(attachment, dir);
    const second = await rig.channel.download(attachment, dir);
    expect([basename(first), basename(second)]).toEqual([".._report.pdf", ".._report-1.pdf"]);
    expect(first.startsWith(dir)).toBe(true);
  });

  it("says which file Feishu would not give, and asks nothing for a reference that is not Feishu's", async () => {
    await expect(rig.channel.download({ kind: "image", ref: "om_9/img_missing" }, dir)).rejects.toThrow(/234003/);
    const before = rig.fake.api.resourceRequests.length;
    const escaping = rig.channel.download({ kind: "file", ref: "om_1/../../x" }, dir);
    await expect(escaping).rejects.toThrow(/Not a Feishu attachment reference/);
    expect(rig.fake.api.resourceRequests).toHaveLength(before);
  });
});
