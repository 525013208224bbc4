/**
 * Ogg/Opus, the format Telegram and Feishu play as voice messages: recognizing it, and its duration from the
 * granule position of the last page (48 kHz samples, minus the encoder's pre-skip), without ffprobe.
 */
import { open } from "node:fs/promises";

const HEAD_BYTES = 512;
/** The last Ogg page is at most 64 KiB long. */
const TAIL_BYTES = 65_536 + 27;
const OPUS_RATE = 48_000;

export interface OggOpusInfo {
  durationSec: number;
}

/** Duration of an Ogg/Opus file, or undefined when the file is something else. */
export async function oggOpusInfo(path: string): Promise<OggOpusInfo | undefined> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    await file.read(head, 0, head.length, 0);
    const opusHead = head.indexOf("OpusHead", 0, "latin1");
    if (!head.subarray(0, 4).equals(Buffer.from("OggS")) || opusHead < 0 || opusHead + 12 > head.length) return undefined;
    const preSkip = head.readUInt16LE(opusHead + 10);

    const tailLength = Math.min(TAIL_BYTES, size);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    const lastPage = tail.lastIndexOf("OggS", undefined, "latin1");
    if (lastPage < 0 || lastPage + 14 > tail.length) return undefined;
    const granule = Number(tail.readBigInt64LE(lastPage + 6));
    if (granule < 0) return undefined;
    return { durationSec: Math.max(0, granule - preSkip) / OPUS_RATE };
  } finally {
    await file.close();
  }
}
