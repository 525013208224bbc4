/**
 * Ogg/Opus, the format Telegram and Feishu play as voice messages: recognizing it, and its duration (the last
 * page's granule position less the encoder's pre-skip), read by music-metadata without ffprobe.
 */
export interface OggOpusInfo {
  durationSec: number;
}

/** Duration of an Ogg/Opus file, or undefined when the file is something else or cannot be read as one. */
export async function oggOpusInfo(path: string): Promise<OggOpusInfo | undefined> {
  // Imported on first use, to keep it off the start-up path of every command.
  const { parseFile } = await import("music-metadata");
  try {
    const { format } = await parseFile(path, { duration: true, skipCovers: true });
    if (format.container !== "Ogg" || format.codec !== "Opus" || format.duration === undefined) return undefined;
    return { durationSec: format.duration };
  } catch (err) {
    // A file system error is ours to report; a parse error (unknown format, cut short, damaged) means "not Ogg/Opus".
    if (typeof err === "object" && err !== null && "code" in err && "syscall" in err) throw err;
    return undefined;
  }
}
