/**
 * The ffmpeg binary, when there is one: converting any audio to Ogg/Opus mono at 48 kHz, which Telegram plays as
 * a voice message and Feishu as an audio message. Whether ffmpeg exists is checked once, on first use. execa is
 * imported on first use too: its module graph (about a hundred files) is not needed to start.
 */
const CONVERT_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 10_000;

export class Ffmpeg {
  private present: Promise<boolean> | undefined;

  constructor(private readonly binary: string) {}

  /** True when the binary runs; the answer is kept for the life of the process. */
  available(): Promise<boolean> {
    this.present ??= this.probe();
    return this.present;
  }

  private async probe(): Promise<boolean> {
    try {
      const { execa } = await import("execa");
      return (await execa(this.binary, ["-hide_banner", "-version"], { timeout: PROBE_TIMEOUT_MS, reject: false })).exitCode === 0;
    } catch {
      return false;
    }
  }

  /** Decodes `input` to mono 16-bit little-endian PCM at `rate` Hz (for a voice message's waveform). */
  async pcm(input: string, rate: number, signal?: AbortSignal): Promise<Buffer> {
    const args = ["-hide_banner", "-loglevel", "error", "-nostdin", "-i", input, "-vn", "-ac", "1", "-ar", String(rate), "-f", "s16le", "-"];
    const { execa } = await import("execa");
    const result = await execa(this.binary, args, {
      timeout: CONVERT_TIMEOUT_MS,
      reject: false,
      stdin: "ignore",
      encoding: "buffer",
      ...(signal ? { cancelSignal: signal } : {}),
    });
    if (result.exitCode !== 0) throw new Error(`ffmpeg could not decode the audio: ${Buffer.from(result.stderr).toString().trim().split("\n").at(-1) || `exit code ${result.exitCode}`}`);
    return Buffer.from(result.stdout);
  }

  /** Writes `input` as Ogg/Opus to `output`; throws with ffmpeg's own complaint when it cannot. */
  async toOggOpus(input: string, output: string, signal?: AbortSignal): Promise<void> {
    // No metadata is carried over: tags of a user's file could hold anything.
    const args = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", input, "-vn", "-map_metadata", "-1"];
    args.push("-ac", "1", "-ar", "48000", "-c:a", "libopus", "-b:a", "32k", "-application", "voip", "-f", "ogg", output);
    const { execa } = await import("execa");
    const result = await execa(this.binary, args, {
      timeout: CONVERT_TIMEOUT_MS,
      reject: false,
      stdin: "ignore",
      ...(signal ? { cancelSignal: signal } : {}),
    });
    if (result.exitCode !== 0) {
      const reason = result.timedOut ? `took longer than ${CONVERT_TIMEOUT_MS / 1000} s` : String(result.stderr).trim().split("\n").at(-1);
      throw new Error(`ffmpeg could not convert the audio: ${reason || `exit code ${result.exitCode}`}`);
    }
  }
}
