/**
 * WeCom voice messages are AMR, which speech-to-text services do not take: the downloaded AMR is converted with
 * ffmpeg to Ogg/Opus beside it. Without ffmpeg the AMR file is what the gateway gets, and transcription says so.
 */
const CONVERT_TIMEOUT_MS = 60_000;

/** Writes `input` (AMR) as Ogg/Opus to `output`; throws with ffmpeg's complaint when it cannot. */
export async function amrToOgg(input: string, output: string, binary = "ffmpeg"): Promise<void> {
  const { execa } = await import("execa");
  const args = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", input, "-vn", "-map_metadata", "-1"];
  args.push("-ac", "1", "-ar", "16000", "-c:a", "libopus", "-b:a", "24k", "-f", "ogg", output);
  const result = await execa(binary, args, { timeout: CONVERT_TIMEOUT_MS, reject: false, stdin: "ignore" });
  if (result.exitCode !== 0) {
    const reason = result.timedOut ? `took longer than ${CONVERT_TIMEOUT_MS / 1000} s` : String(result.stderr).trim().split("\n").at(-1);
    throw new Error(`ffmpeg could not convert the WeCom voice message: ${reason || `exit code ${result.exitCode}`}`);
  }
}
