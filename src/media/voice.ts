/**
 * Turning an audio artifact into what the target platform plays as a voice message: Telegram, Feishu and Discord want
 * Ogg/Opus (Feishu with its duration, Discord with duration and waveform), WebChat's browser plays the file as it is.
 * Without ffmpeg, or when it fails, the audio still goes out, as a plain audio file with a warning.
 */
import { extname } from "node:path";
import type { OutboundFile, VoiceFormat } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import type { StagedArtifact } from "./artifact.js";
import type { Ffmpeg } from "./ffmpeg.js";
import { oggOpusInfo } from "./ogg-opus.js";
import { WAVEFORM_RATE, waveformOf } from "./waveform.js";

export interface OutgoingVoice {
  file: OutboundFile;
  /** Set when it goes as something other than a voice message. */
  sentAs?: "audio";
  warnings: string[];
}

export interface VoiceOptions {
  /** What the target platform plays as a voice message. */
  format: VoiceFormat;
  ffmpeg: Ffmpeg;
  /** Where a converted copy is written. */
  convertedPath: string;
  caption: string | undefined;
  log: Logger;
  signal: AbortSignal;
}

export async function prepareVoice(artifact: StagedArtifact, opts: VoiceOptions): Promise<OutgoingVoice> {
  const { stagedPath, name, mime } = artifact;
  const caption = opts.caption !== undefined ? { caption: opts.caption } : {};
  const asAudio = (warning?: string): OutgoingVoice => ({
    file: { path: stagedPath, kind: "audio", name, mime, ...caption },
    sentAs: "audio",
    warnings: warning ? [warning] : [],
  });
  if (opts.format === "audio-file") return asAudio();
  if (opts.format === "any") return { file: { path: stagedPath, kind: "voice", name, mime, ...caption }, warnings: [] };

  const oggName = `${name.slice(0, name.length - extname(name).length) || "voice"}.ogg`;
  const hasFfmpeg = await opts.ffmpeg.available();
  const asVoice = async (path: string, durationSec: number): Promise<OutgoingVoice> => {
    const waveform = hasFfmpeg ? await waveformFor(path, opts) : undefined;
    return {
      file: { path, kind: "voice", name: oggName, mime: "audio/ogg", durationSec: Math.round(durationSec), ...caption, ...(waveform ? { waveform } : {}) },
      warnings: [],
    };
  };
  const already = await oggOpusInfo(stagedPath);
  if (already) return asVoice(stagedPath, already.durationSec);
  if (!hasFfmpeg) {
    return asAudio(`ffmpeg is not installed, so ${name} went as an audio file rather than a voice message`);
  }
  try {
    await opts.ffmpeg.toOggOpus(stagedPath, opts.convertedPath, opts.signal);
    const converted = await oggOpusInfo(opts.convertedPath);
    if (!converted) throw new Error("ffmpeg's output is not Ogg/Opus");
    return await asVoice(opts.convertedPath, converted.durationSec);
  } catch (err) {
    opts.log.warn({ err, artifact: name }, "voice conversion failed; sending an audio file");
    return asAudio(`${(err as Error).message}; ${name} went as an audio file rather than a voice message`);
  }
}

/** The waveform a platform draws under a voice message; without one it still plays, so a failure is only logged. */
async function waveformFor(path: string, opts: VoiceOptions): Promise<string | undefined> {
  try {
    return waveformOf(await opts.ffmpeg.pcm(path, WAVEFORM_RATE, opts.signal), WAVEFORM_RATE);
  } catch (err) {
    opts.log.warn({ err }, "could not draw the voice message's waveform");
    return undefined;
  }
}
