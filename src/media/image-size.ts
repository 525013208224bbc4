/**
 * Width and height of an image (PNG, JPEG, GIF, WebP, and the other formats image-size knows) from its header,
 * without decoding it. A JPEG's size sits after its metadata segments, so callers pass the first IMAGE_HEAD_BYTES.
 */
import { open } from "node:fs/promises";
import { imageSize as readImageSize } from "image-size";

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
    // A copy: image-size reads through a DataView that may run past a Buffer slice into its neighbours' bytes.
    const { width, height } = readImageSize(new Uint8Array(head));
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    // image-size throws for unknown formats and for headers cut short or damaged: all mean "no size".
    return undefined;
  }
}
