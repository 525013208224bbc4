/** Real audio and images made with ffmpeg for the fake speech and image endpoints. */
import { execFileSync } from "node:child_process";

/** `seconds` of a 440 Hz tone encoded as `format` (mp3, wav, or opus in Ogg). */
export function toneAudio(seconds: number, format: "mp3" | "wav" | "opus"): Buffer {
  const codec = format === "opus" ? ["-c:a", "libopus", "-f", "ogg"] : ["-f", format];
  return execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`, ...codec, "-"], {
    maxBuffer: 16 * 1_048_576,
  });
}

/** A 64x64 PNG of one colour. */
export function solidPng(): Buffer {
  return execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=red:s=64x64", "-frames:v", "1", "-c:v", "png", "-f", "image2pipe", "-"]);
}
