/** Checks a voice note the fake Telegram received: an Ogg/Opus file, read back for its real duration. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { oggOpusInfo, type OggOpusInfo } from "../../src/media/ogg-opus.js";

/** Asserts the bytes are Ogg with an OpusHead, and answers what the file itself says (its duration). */
export async function sentOggOpus(data: Buffer): Promise<OggOpusInfo> {
  expect(data.subarray(0, 4).toString("latin1")).toBe("OggS");
  expect(data.includes(Buffer.from("OpusHead"))).toBe(true);
  const file = join(await mkdtemp(join(tmpdir(), "sent-voice-")), "sent.ogg");
  await writeFile(file, data);
  const info = await oggOpusInfo(file);
  expect(info).toBeDefined();
  return info!;
}
