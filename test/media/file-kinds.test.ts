import { describe, expect, it } from "vitest";
import { mimeFromName, sniff } from "../../src/media/file-kinds.js";
import { imageSize } from "../../src/media/image-size.js";
import { PNG, sineWav } from "./media-fixtures.js";

function gif(width: number, height: number): Buffer {
  const head = Buffer.alloc(13);
  head.write("GIF89a", 0, "latin1");
  head.writeUInt16LE(width, 6);
  head.writeUInt16LE(height, 8);
  return head;
}

/** SOI, an APP0 segment to skip, then a baseline SOF0 with the size. */
function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof0 = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0]);
}

function webp(chunk: "VP8 " | "VP8L" | "VP8X", width: number, height: number): Buffer {
  const head = Buffer.alloc(32);
  head.write("RIFF", 0, "latin1");
  head.write("WEBP", 8, "latin1");
  head.write(chunk, 12, "latin1");
  if (chunk === "VP8 ") {
    head.writeUInt16LE(width, 26);
    head.writeUInt16LE(height, 28);
  } else if (chunk === "VP8L") {
    head.writeUInt32LE(((height - 1) << 14) | (width - 1), 21);
  } else {
    head.writeUIntLE(width - 1, 24, 3);
    head.writeUIntLE(height - 1, 27, 3);
  }
  return head;
}

describe("imageSize", () => {
  it("reads PNG, GIF, JPEG and the three WebP flavours", () => {
    expect(imageSize(PNG)).toEqual({ width: 1, height: 1 });
    expect(imageSize(gif(320, 200))).toEqual({ width: 320, height: 200 });
    expect(imageSize(jpeg(1920, 1080))).toEqual({ width: 1920, height: 1080 });
    expect(imageSize(webp("VP8 ", 640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageSize(webp("VP8L", 100, 50))).toEqual({ width: 100, height: 50 });
    expect(imageSize(webp("VP8X", 4000, 3000))).toEqual({ width: 4000, height: 3000 });
  });

  it("answers undefined for damaged, cut-short and unknown data", () => {
    expect(imageSize(PNG.subarray(0, 18))).toBeUndefined();
    expect(imageSize(jpeg(10, 10).subarray(0, 12))).toBeUndefined();
    expect(imageSize(gif(0, 10))).toBeUndefined();
    expect(imageSize(Buffer.from("plain text, not an image"))).toBeUndefined();
    expect(imageSize(Buffer.alloc(0))).toBeUndefined();
  });
});

describe("sniff", () => {
  it("trusts the bytes over the name", async () => {
    expect(await sniff(PNG, "notes.txt")).toEqual({ mime: "image/png", families: ["image"] });
    expect(await sniff(sineWav(0.01), "x.bin")).toEqual({ mime: "audio/wav", families: ["audio"] });
    expect(await sniff(Buffer.from("hello"), "notes.md")).toEqual({ mime: "text/markdown", families: [] });
    expect(await sniff(Buffer.from("hello"), "mystery")).toEqual({ mime: "application/octet-stream", families: [] });
    expect(await sniff(Buffer.alloc(0), "empty.png")).toEqual({ mime: "image/png", families: [] });
  });

  it("names a recognized type that no chat plays as media, and drops MIME parameters", async () => {
    expect(await sniff(Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj\n"), "scan.png")).toEqual({ mime: "application/pdf", families: [] });
    const opus = Buffer.concat([Buffer.from("OggS\0\x02", "latin1"), Buffer.alloc(22), Buffer.from("OpusHead\x01\x01", "latin1"), Buffer.alloc(16)]);
    expect(await sniff(opus, "voice.bin")).toEqual({ mime: "audio/ogg", families: ["audio"] });
  });

  it("maps a name to its MIME type, whatever the case of its extension", () => {
    expect(mimeFromName("REPORT.PDF")).toBe("application/pdf");
    expect(mimeFromName("no-extension")).toBeUndefined();
  });
});
