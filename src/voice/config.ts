/**
 * The `tts` section (the speech provider) and the `voice` section (when the bot answers with speech). Every field
 * has a default: without tts.baseUrl the bot does not speak, and says so once at start.
 */
import { z } from "zod";

export const TTS_FORMATS = ["opus", "mp3", "aac", "flac", "wav"] as const;

export const ttsConfigSchema = z
  .strictObject({
    /** openai-compatible: any endpoint that answers POST {baseUrl}/audio/speech as OpenAI's does. */
    provider: z.enum(["openai-compatible"]).default("openai-compatible"),
    /** The endpoint (…/v1); null = no speech. */
    baseUrl: z.url({ protocol: /^https?$/ }).nullable().default(null),
    apiKey: z.string().min(1).nullable().default(null),
    model: z.string().min(1).default("tts-1"),
    voice: z.string().min(1).default("alloy"),
    /** What the endpoint is asked for; anything but opus is converted with ffmpeg before it goes out as a voice note. */
    format: z.enum(TTS_FORMATS).default("opus"),
    speed: z.number().min(0.25).max(4).default(1),
    timeoutMs: z.number().int().positive().default(60_000),
  })
  .prefault({});
export type TtsConfig = z.infer<typeof ttsConfigSchema>;

export const VOICE_MODES = ["off", "mirror", "always"] as const;
export type VoiceMode = (typeof VOICE_MODES)[number];

export const voiceConfigSchema = z
  .strictObject({
    /** off: never; mirror: a voice message gets a voice reply; always: every reply is spoken. Per chat: /voice. */
    reply: z.enum(VOICE_MODES).default("mirror"),
    /** Characters of speech per voice message (about a minute); a longer answer is spoken in several. */
    maxPartChars: z.number().int().min(100).max(4096).default(1000),
    /** At most this many voice messages per reply; the rest is left to the text. */
    maxParts: z.number().int().min(1).max(20).default(4),
  })
  .prefault({});
export type VoiceConfig = z.infer<typeof voiceConfigSchema>;
