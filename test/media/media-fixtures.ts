/** Small real media files made in code: a PNG, a JPEG header, a WAV of a sine tone, an Ogg/Opus stream. */
import { execFileSync } from "node:child_process";

// A 1x1 transparent PNG.
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

/** A 16-bit mono PCM WAV of a 440 Hz tone. */
export function sineWav(seconds: number, rate = 16_000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i += 1) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** One Ogg page (CRC left at 0, which readers of voice messages do not check). */
function oggPage(headerType: number, granule: bigint, sequence: number, data: Buffer): Buffer {
  const header = Buffer.alloc(27);
  header.write("OggS", 0, "latin1");
  header[5] = headerType;
  header.writeBigInt64LE(granule, 6);
  header.writeUInt32LE(1, 14); // stream serial number
  header.writeUInt32LE(sequence, 18);
  const lacing = [...Array<number>(Math.floor(data.length / 255)).fill(255), data.length % 255];
  header[26] = lacing.length;
  return Buffer.concat([header, Buffer.from(lacing), data]);
}

/**
 * An Ogg/Opus stream of `seconds` of (silent, made-up) packets with the usual 312-sample pre-skip. `audio` is the
 * payload of each audio page, e.g. bytes that happen to spell "OggS".
 */
export function oggOpus(seconds: number, audio = Buffer.alloc(40, 0xfc)): Buffer {
  const preSkip = 312;
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "latin1");
  head[8] = 1; // version
  head[9] = 1; // channels
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(48_000, 12);
  const tags = Buffer.concat([Buffer.from("OpusTags", "latin1"), Buffer.from([4, 0, 0, 0]), Buffer.from("test"), Buffer.alloc(4)]);
  const end = BigInt(Math.round(seconds * 48_000) + preSkip);
  return Buffer.concat([
    oggPage(0x02, 0n, 0, head),
    oggPage(0x00, 0n, 1, tags),
    oggPage(0x00, end / 2n, 2, audio),
    oggPage(0x04, end, 3, audio),
  ]);
}

export const hasFfmpeg = ((): boolean => {
  try {
    execFileSync("ffmpeg", ["-hide_banner", "-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
