/** Files both ways: what users send is downloaded through the adapter, what the bot sends goes by the right method. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UPLOAD_LIMIT_BYTES } from "../../../src/channels/telegram/send.js";
import type { OutboundFile } from "../../../src/core/types.js";
import { alice, directChat, messageUpdate, text } from "../../fakes/telegram/updates.js";
import { startTelegram, type TelegramHarness } from "./harness.js";

let h: TelegramHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const target = { channel: "telegram" as const, chatId: String(alice.id) };
const MB = 1024 * 1024;

describe("Telegram downloads", () => {
  it("delivers a photo and a voice message as attachments the adapter can download", async () => {
    h = await startTelegram();
    const photoBytes = Buffer.from("\xff\xd8 fake jpeg bytes", "latin1");
    const voiceBytes = Buffer.from("OggS fake opus bytes");
    const small = h.fake.addFile(Buffer.from("thumb"));
    const large = h.fake.addFile(photoBytes);
    const voice = h.fake.addFile(voiceBytes);
    h.fake.addUpdate(messageUpdate(directChat(), { photo: [{ ...small, width: 90, height: 90 }, { ...large, width: 800, height: 600 }], caption: "what is this?" }));
    h.fake.addUpdate(messageUpdate(directChat(), { voice: { ...voice, duration: 2, mime_type: "audio/ogg" } }));
    await h.fake.waitFor(() => h!.received.length === 2 || undefined);
    const [photoMessage, voiceMessage] = h.received;
    expect(photoMessage).toMatchObject({ text: "what is this?", attachments: [{ kind: "image", ref: large.file_id, size: photoBytes.length }] });
    expect(voiceMessage).toMatchObject({ attachments: [{ kind: "voice", ref: voice.file_id, durationSec: 2, mime: "audio/ogg" }] });

    const inbox = join(h.dataDir, "inbox");
    const photoPath = await h.channel.download(photoMessage!.attachments[0]!, inbox);
    const voicePath = await h.channel.download(voiceMessage!.attachments[0]!, inbox);
    expect(await readFile(photoPath)).toEqual(photoBytes);
    expect(await readFile(voicePath)).toEqual(voiceBytes);
    expect(photoPath.startsWith(inbox)).toBe(true);
  });

  it("refuses a file over the limit with a clear message, before and after getFile", async () => {
    h = await startTelegram();
    const huge = h.fake.addFile(Buffer.from("tiny"), { size: 25 * MB });
    const known = { kind: "file" as const, ref: huge.file_id, name: "movie.mkv", size: 25 * MB };
    await expect(h.channel.download(known, h.dataDir)).rejects.toThrow('The file "movie.mkv" is 25.0 MB; a Telegram bot can download at most 20.0 MB');
    expect(h.fake.callsOf("getFile")).toHaveLength(0);
    // Size unknown in the message: Telegram's own "file is too big" answer gives the same message.
    await expect(h.channel.download({ kind: "video", ref: huge.file_id }, h.dataDir)).rejects.toThrow(/The video is .* a Telegram bot can download at most 20.0 MB/);
  });

  it("tells the sender when a file they sent is too large to read", async () => {
    h = await startTelegram();
    const huge = h.fake.addFile(Buffer.from("x"), { size: 30 * MB });
    h.fake.addUpdate(messageUpdate(directChat(), { document: { ...huge, file_name: "backup.zip" }, caption: "keep this" }));
    const notice = await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text?.startsWith("I could not open")));
    expect(notice.text).toBe("I could not open backup.zip (30.0 MB): bots can only download files up to 20.0 MB from Telegram. Send a smaller file, or a link to it.");
  });

  it("reads a file from disk when a local Bot API server answers an absolute path", async () => {
    h = await startTelegram();
    const onDisk = join(h.dataDir, "server-file.bin");
    await writeFile(onDisk, "local bytes");
    const file = h.fake.addFile(Buffer.alloc(0), { path: onDisk, size: 11 });
    const path = await h.channel.download({ kind: "file", ref: file.file_id, name: "local.bin" }, join(h.dataDir, "in"));
    expect(await readFile(path, "utf8")).toBe("local bytes");
  });

  it("does not crash on a message whose text is only a mention, with no attachments", async () => {
    h = await startTelegram();
    h.fake.addUpdate(text(directChat(), "@switchboard_test_bot"));
    await h.fake.waitFor(() => h!.received.length === 1 || undefined);
    expect(h.received[0]).toMatchObject({ text: "", attachments: [] });
  });
});

describe("Telegram uploads", () => {
  async function localFile(name: string, content: string | Buffer): Promise<string> {
    const path = join(h!.dataDir, name);
    await writeFile(path, content);
    return path;
  }

  it.each<[OutboundFile["kind"], string, string | undefined, string, string]>([
    ["image", "chart.png", "image/png", "sendPhoto", "photo"],
    ["voice", "note.ogg", "audio/ogg", "sendVoice", "voice"],
    ["voice", "note.mp3", "audio/mpeg", "sendAudio", "audio"],
    ["audio", "song.mp3", undefined, "sendAudio", "audio"],
    ["video", "clip.mp4", "video/mp4", "sendVideo", "video"],
    ["file", "my report.pdf", "application/pdf", "sendDocument", "document"],
  ])("sends a %s named %s with %s", async (kind, name, mime, method, field) => {
    h = await startTelegram();
    const path = await localFile(name, `bytes of ${name}`);
    const sent = await h.channel.sendFile(target, { path, kind, name, mime, caption: "here **it** is" }, { replyTo: "12" });
    expect(h.fake.sent).toEqual([
      expect.objectContaining({ method, chatId: target.chatId, caption: "here <b>it</b> is", parseMode: "HTML", replyTo: 12, file: { field, filename: name, data: Buffer.from(`bytes of ${name}`) } }),
    ]);
    expect(sent.messageId).toBe(String(h.fake.sent[0]!.messageId));
  });

  it("cuts a caption at 1024 characters and sends the rest as text after the file", async () => {
    h = await startTelegram();
    const path = await localFile("doc.txt", "content");
    const caption = Array.from({ length: 60 }, (_, i) => `Line ${i} of a long caption 😀`).join("\n");
    await h.channel.sendFile(target, { path, kind: "file", name: "doc.txt", caption });
    const [file, ...rest] = h.fake.sent;
    expect(file!.caption!.length).toBeLessThanOrEqual(1024);
    expect(rest.length).toBeGreaterThan(0);
    expect([file!.caption, ...rest.map((s) => s.text)].join("\n")).toBe(caption);
  });

  it("says which upload to which chat failed, and why", async () => {
    h = await startTelegram();
    const path = await localFile("a.pdf", "pdf");
    h.fake.fail("sendDocument", { kind: "error", code: 400, description: "Bad Request: chat not found" });
    await expect(h.channel.sendFile(target, { path, kind: "file", name: "a.pdf" })).rejects.toThrow(
      `Telegram sendDocument to chat ${alice.id} failed: Call to 'sendDocument' failed! (400: Bad Request: chat not found)`,
    );
  });

  it("sends an image over 10 MB as a document and refuses a file over 50 MB", async () => {
    h = await startTelegram();
    const big = await localFile("big.png", Buffer.alloc(11 * MB));
    await h.channel.sendFile(target, { path: big, kind: "image", name: "big.png" });
    expect(h.fake.sent[0]).toMatchObject({ method: "sendDocument" });
    const huge = await localFile("huge.bin", Buffer.alloc(UPLOAD_LIMIT_BYTES + 1));
    await expect(h.channel.sendFile(target, { path: huge, kind: "file", name: "huge.bin" })).rejects.toThrow("Cannot send huge.bin: it is 52428801 bytes and Telegram bots may upload at most 52428800");
    await expect(h.channel.sendFile(target, { path: join(h.dataDir, "missing"), kind: "file", name: "missing" })).rejects.toThrow(/Cannot send missing: ENOENT/);
    expect(h.fake.sent).toHaveLength(1);
  });
});
