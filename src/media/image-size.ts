/**
 * Width and height of PNG, JPEG, GIF and WebP images from their headers, without decoding them and without an
 * image library. A JPEG's size sits after its metadata segments, so callers pass the first IMAGE_HEAD_BYTES.
 */
import { open } from "node:fs/promises";

export const IMAGE_HEAD_BYTES = 256 * 1024;

export interface ImageSize {
  width: number;
  height: number;
}

/** The size of the image at `path`, or undefined when its format is unknown or its header is damaged. */
export async function imageSizeOf(path: string): Promise<ImageSize | undefined> {
  const file = await open(path, "r");
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(IMAGE_HEAD_BYTES), 0, IMAGE_HEAD_BYTES, 0);
    return imageSize(buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

export function imageSize(head: Buffer): ImageSize | undefined {
  try {
    return positive(readSize(head));
  } catch (err) {
    // A header cut short reads past the buffer: that is a damaged image, not a bug.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

function readSize(h: Buffer): ImageSize | undefined {
  const tag = (at: number, text: string): boolean => h.toString("latin1", at, at + text.length) === text;
  if (tag(0, "\x89PNG\r\n\x1a\n") && tag(12, "IHDR")) return { width: h.readUInt32BE(16), height: h.readUInt32BE(20) };
  if (tag(0, "GIF87a") || tag(0, "GIF89a")) return { width: h.readUInt16LE(6), height: h.readUInt16LE(8) };
  if (tag(0, "RIFF") && tag(8, "WEBP")) return webpSize(h, tag);
  if (h[0] === 0xff && h[1] === 0xd8) return jpegSize(h);
  return undefined;
}

function webpSize(h: Buffer, tag: (at: number, text: string) => boolean): ImageSize | undefined {
  if (tag(12, "VP8 ")) return { width: h.readUInt16LE(26) & 0x3fff, height: h.readUInt16LE(28) & 0x3fff };
  if (tag(12, "VP8L")) {
    const bits = h.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (tag(12, "VP8X")) return { width: h.readUIntLE(24, 3) + 1, height: h.readUIntLE(27, 3) + 1 };
  return undefined;
}

/** Walks the segments to the first start-of-frame marker, which holds the size. */
function jpegSize(h: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 9 < h.length) {
    if (h[at] !== 0xff) return undefined;
    const marker = h[at + 1] as number;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isStartOfFrame) return { height: h.readUInt16BE(at + 5), width: h.readUInt16BE(at + 7) };
    at += 2 + h.readUInt16BE(at + 2);
  }
  return undefined;
}

function positive(size: ImageSize | undefined): ImageSize | undefined {
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}
